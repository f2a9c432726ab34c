import EventModel
public import Foundation
import ViewIdentity

/// Shared test fixtures: paths to the docs and examples, temporary folders, and the spec's trees.
public enum Fixtures {
    /// The repository root (this file is Tests/TestSupport/Fixtures.swift).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The repository's `docs/`, which holds our account of the contracts (viewpath.md, wire.md, config.md).
    public static var docsDirectory: URL { repositoryRoot.appendingPathComponent("docs") }

    /// A fresh temporary directory, removed by the caller (or left for the OS).
    public static func temporaryDirectory(_ label: String = "autotrack") -> URL {
        let u = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    /// The view tree of viewpath.md §2's example: `HomeViewController`'s view holds a table whose
    /// cell at 0:2 holds a content view with two buttons (ids `btn0`, `btn1`) and a label.
    public static let specExampleTree = """
        {"type":"Shop.HomeViewController","role":"controller","id":"home","children":[
          {"type":"UIView","id":"root","children":[
            {"type":"UITableView","id":"table","children":[
              {"type":"Shop.ProductCell","role":"cell","indexPath":[0,2],"id":"cell","props":{"product":{"id":"p-42","price":9.5}},"children":[
                {"type":"UITableViewCellContentView","id":"content","children":[
                  {"type":"UIButton","id":"btn0","title":"Fav"},
                  {"type":"UILabel","id":"label"},
                  {"type":"UIButton","id":"btn1","title":"Buy"}
                ]}
              ]}
            ]}
          ]}
        ]}
        """
}
