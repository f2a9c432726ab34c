import Foundation
public import ViewIdentity

/// A view tree read from a file: one page of a build.
public struct TreeFile {
    public let path: String
    public let tree: ViewTree

    public init(path: String, tree: ViewTree) {
        self.path = path
        self.tree = tree
    }

    /// Reads every tree named: a file is one tree, a directory holds one per `.json` file (its
    /// subdirectories too, hidden ones skipped), read in sorted order.
    public static func load(_ paths: [String]) throws(DriftError) -> [TreeFile] {
        var out: [TreeFile] = []
        for p in paths { out += try load(p) }
        return out
    }

    /// The trees of one file or directory.
    public static func load(_ path: String) throws(DriftError) -> [TreeFile] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DriftError(code: .unreadablePath, path: path, reason: "no such file or directory; give a tree file or a directory of them")
        }
        guard isDirectory.boolValue else { return [try read(path)] }
        guard let walker = FileManager.default.enumerator(atPath: path) else {
            throw DriftError(code: .unreadablePath, path: path, reason: "cannot list the directory (check its permissions)")
        }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            if relative.hasSuffix(".json") { found.append(relative) }
        }
        guard !found.isEmpty else {
            throw DriftError(
                code: .noTreeFiles, path: path,
                reason: "holds no .json tree file; write trees with `autotrack-agent demo --tree-dir \(path)` or give files")
        }
        var out: [TreeFile] = []
        for relative in found.sorted() {
            out.append(try read((path as NSString).appendingPathComponent(relative)))
        }
        return out
    }

    private static func read(_ file: String) throws(DriftError) -> TreeFile {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw DriftError(code: .unreadablePath, path: file, reason: "cannot read the file (check its permissions)")
        }
        do throws(ViewTreeError) {
            return TreeFile(path: file, tree: try ViewTree(json: [UInt8](data)))
        } catch {
            throw DriftError(code: .badTree, path: file, reason: "not a view tree: \(error). Fix that node (docs/viewpath.md §1)")
        }
    }
}
