import AgentCommands
import CommandSupport
import EventModel
import Foundation
import KVCConfig
import Testing
import TestSupport
import ViewIdentity

@Suite struct DriftCommandTests {
    static let rules = """
        {"rules": [
          {"id": "share", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "DetailViewController-UIView-UIButton&0-0-1", "keyPath": "product.id", "keyName": "productId"},
          {"id": "enter", "appKey": "shop", "appVersion": "*", "viewEvent": "PageEnter",
           "viewPath": "DetailViewController&0", "keyPath": "product.id", "keyName": "productId"}
        ]}
        """

    static func page(_ content: String) -> String {
        #"{"type":"Shop.DetailViewController","role":"controller","props":{"product":{"id":"p-1"}},"children":[{"type":"UIView","children":[\#(content)]}]}"#
    }

    static let buttons = #"{"type":"UIButton","id":"fav","title":"Fav","props":{"product":{"id":"p-1"}}},{"type":"UIButton","id":"share","title":"Share","props":{"product":{"id":"p-1"}}}"#
    static let old = page(buttons)
    static let new = page(#"{"type":"UIStackView","children":[\#(buttons)]}"#)

    struct Files {
        let dir: URL
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

        init(_ files: [String: String]) throws {
            dir = Fixtures.temporaryDirectory("drift-command")
            for (name, text) in files {
                let url = dir.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: url, atomically: true, encoding: .utf8)
            }
        }
    }

    static func files() throws -> Files {
        try Files(["rules.json": rules, "old/detail.json": old, "new/detail.json": new, "same/detail.json": old])
    }

    func run(_ args: [String]) -> (code: Int32, out: String, err: String) {
        let io = CapturedStreams()
        let code = AgentCLI.group.main(["drift"] + args, io: io)
        return (code.rawValue, io.standardOutput, io.standardError)
    }

    @Test func aCleanBuildExitsZeroWithTheExactJSON() throws {
        let f = try Self.files()
        let r = run(["--config", f.path("rules.json"), "--trees", f.path("same"), "--baseline", f.path("old"), "--format", "json"])
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.out
                == #"{"rules":[{"rule":"share","status":"ok","matches":1,"suggestion":null,"candidates":[]},"#
                + #"{"rule":"enter","status":"ok","matches":1,"suggestion":null,"candidates":[]}]}"# + "\n")
        #expect(r.err == "autotrack-agent drift: 2 rules in range, 0 broken, 0 with a suggested viewPath\n")
    }

    @Test func aBrokenRuleExitsOneWithTheIssuesJSONShape() throws {
        let f = try Self.files()
        let r = run(["--config", f.path("rules.json"), "--trees", f.path("new/detail.json"), "--baseline", f.path("old"), "--format", "json"])
        #expect(r.code == 1)
        let json = try JSONValue.parse(r.out)
        #expect(json.objectValue?.keys == ["rules"])
        let share = try #require(json["rules"]?.arrayValue?.first?.objectValue)
        #expect(share.keys == ["rule", "status", "matches", "suggestion", "candidates"])
        #expect(share["rule"] == "share" && share["status"] == "broken" && share["matches"] == 0)
        let s = try #require(share["suggestion"]?.objectValue)
        #expect(s.keys == ["viewPath", "score", "signals"])
        #expect(s["viewPath"] == "DetailViewController-UIView-UIStackView-UIButton&0-0-0-1")
        #expect(s["score"]?.doubleValue.map { $0 >= 0.65 && $0 <= 1 } == true)
        #expect(s["signals"]?.arrayValue?.contains("id") == true)
        let candidates = try #require(share["candidates"]?.arrayValue)
        #expect(candidates.first?.objectValue?.keys == ["viewPath", "score"])
        #expect(candidates.first?["viewPath"] == s["viewPath"])
    }

    @Test func fixWritesRulesThatLoadWithOnlyTheSuggestedPathChanged() throws {
        let f = try Self.files()
        let out = f.path("fixed.json")
        let r = run(["--config", f.path("rules.json"), "--trees", f.path("new"), "--baseline", f.path("old"), "--fix", out])
        #expect(r.code == 1)
        #expect(r.out.contains("suggest    DetailViewController-UIView-UIStackView-UIButton&0-0-0-1"))
        #expect(r.err.contains("wrote 2 rules to \(out), 1 viewPath changed"))
        let before = try TrackingPlan.load(files: [f.path("rules.json")]).rules
        let after = try TrackingPlan.load(files: [out]).rules
        #expect(after.map(\.viewPath.text) == ["DetailViewController-UIView-UIStackView-UIButton&0-0-0-1", "DetailViewController&0"])
        #expect(after.map(\.keyPath) == before.map(\.keyPath))
        #expect(after.map(\.appVersion) == before.map(\.appVersion))
        #expect(after.map(\.id) == before.map(\.id))
        // Drift over the fixed rules finds nothing broken.
        #expect(run(["--config", out, "--trees", f.path("new"), "--baseline", f.path("old")]).code == 0)
    }

    @Test func usageErrorsExitTwoAndUnreadableInputsOne() throws {
        let f = try Self.files()
        #expect(run(["--config", f.path("rules.json")]).code == 2)
        #expect(run(["--trees", f.path("new")]).code == 2)
        let format = run(["--config", f.path("rules.json"), "--trees", f.path("new"), "--format", "xml"])
        #expect(format.code == 2)
        #expect(format.err.contains("option --format takes table or json, not 'xml'"))
        #expect(run(["--config", f.path("rules.json"), "--trees", f.path("new"), "--app-version", "1.x"]).code == 2)
        let missing = run(["--config", f.path("rules.json"), "--trees", f.path("nowhere")])
        #expect(missing.code == 1)
        #expect(missing.err.contains("nowhere: no such file or directory"))
        let empty = run(["--config", f.path("rules.json"), "--trees", f.dir.path + "/../" + f.dir.lastPathComponent + "/old/../none"])
        #expect(empty.code == 1)
        let bad = try Files(["rules.json": Self.rules, "t/bad.json": #"{"type":"","children":[]}"#])
        let badTree = run(["--config", bad.path("rules.json"), "--trees", bad.path("t")])
        #expect(badTree.code == 1)
        #expect(badTree.err.contains("bad.json: not a view tree: the root node has a missing or empty \"type\""))
    }

    @Test func theInventoryAddsRenamedActions() throws {
        let f = try Files([
            "events.json": #"{"DetailViewController": {"ControlEventIDs": {"onShareBtnPressed:": "CTRL_SHARE"}}}"#,
            "inventory.json": #"{"DetailViewController": ["onShareButtonPressed:", "viewDidLoad"]}"#,
            "rules.json": Self.rules, "t/detail.json": Self.old,
        ])
        let r = run([
            "--config", f.path("events.json"), "--config", f.path("rules.json"), "--trees", f.path("t"),
            "--inventory", f.path("inventory.json"), "--format", "json",
        ])
        #expect(r.code == 1)
        let actions = try #require(try JSONValue.parse(r.out)["actions"]?.arrayValue)
        #expect(actions.count == 1)
        #expect(actions.first?["action"] == "onShareBtnPressed:")
        #expect(actions.first?["suggestion"]?["action"] == "onShareButtonPressed:")
        #expect(actions.first?["suggestion"]?["class"] == "DetailViewController")
    }

    @Test func theHelpExampleRunsAsPrinted() throws {
        let help = AgentCLI.group.help(of: DriftCommand.self)
        let example = try #require(help.components(separatedBy: "EXAMPLES:\n").last)
            .replacingOccurrences(of: "\\\n", with: " ")
        var words = example.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(words.first == "autotrack-agent" && words.dropFirst().first == "drift")
        let out = Fixtures.temporaryDirectory("drift-help").appendingPathComponent("fixed-rules.json").path
        words = words.dropFirst(2).map { w in
            if w.hasPrefix("Examples/") { return Fixtures.repositoryRoot.appendingPathComponent(w).path }
            return w == "fixed-rules.json" ? out : w
        }
        let r = run(words)
        #expect(r.code == 1, "\(r.err)")  // the example's new build breaks rules on purpose
        #expect(r.out.contains("broken  home-open-product"))
        #expect(r.out.contains("suggest    HomeViewController-UIView-UITableView-ProductListCell&0-0-0-0:*"))
        #expect(r.out.contains("suggest    DetailViewController-UIView-UIToolbar-UIButton&0-0-0-1"))
        #expect(r.out.contains("no suggestion: no candidate has the view's id, title or content"))
        _ = try TrackingPlan.load(files: [out])
    }

    @Test func theDemoWritesTreesThatTheExampleRulesMatch() throws {
        let dir = Fixtures.temporaryDirectory("demo-trees").appendingPathComponent("trees").path
        let io = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--format", "json", "--tree-dir", dir], io: io) == .success, "\(io.standardError)")
        #expect(io.standardError.contains("demo: wrote 3 page trees to \(dir)"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(files == ["DetailViewController(gift).json", "DetailViewController.json", "HomeViewController.json"])
        let config = Fixtures.repositoryRoot.appendingPathComponent("Examples/shop-rules.json").path
        let r = run(["--config", config, "--trees", dir, "--baseline", dir, "--app-key", "shop", "--app-version", "1.2.0"])
        #expect(r.code == 0, "\(r.out)\(r.err)")
        #expect(r.err.hasPrefix("autotrack-agent drift: 9 rules in range, 0 broken"))
    }
}
