import AgentCommands
import CommandSupport
import Foundation
import Testing
import TestSupport

@Suite struct MatchCommandTests {
    static let rules = """
        { "rules": [
          { "id": "fav-product", "appKey": "shop", "appVersion": ">=1.2.0 <2.0.0", "viewEvent": "ButtonClick",
            "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-1",
            "keyPath": "product.id", "keyName": "productId" },
          { "id": "buy-title", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
            "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-*",
            "keyPath": "product.sku", "keyName": "sku", "content": "Buy" },
          { "id": "other-app", "appKey": "blog", "appVersion": "*", "viewEvent": "ButtonClick",
            "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-*-0-*",
            "keyPath": "title", "keyName": "t" },
          { "id": "tap-only", "appKey": "shop", "appVersion": "*", "viewEvent": "ViewTap",
            "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-1",
            "keyPath": "product.id", "keyName": "productId" }
        ] }
        """

    /// The spec's tree, with props on the button itself.
    static let tree = Fixtures.specExampleTree.replacingOccurrences(
        of: #"{"type":"UIButton","id":"btn1","title":"Buy"}"#,
        with: #"{"type":"UIButton","id":"btn1","title":"Buy","props":{"product":{"id":"p-42"},"title":"Buy"}}"#)

    struct Files {
        let dir: URL
        var config: String { dir.appendingPathComponent("rules.json").path }
        var tree: String { dir.appendingPathComponent("tree.json").path }

        init(rules: String = MatchCommandTests.rules, tree: String = MatchCommandTests.tree) throws {
            dir = Fixtures.temporaryDirectory("match-command")
            try rules.write(toFile: dir.appendingPathComponent("rules.json").path, atomically: true, encoding: .utf8)
            try tree.write(toFile: dir.appendingPathComponent("tree.json").path, atomically: true, encoding: .utf8)
        }
    }

    func run(_ args: [String]) -> (code: Int32, out: String, err: String) {
        let io = CapturedStreams()
        let code = AgentCLI.group.main(["match"] + args, io: io)
        return (code.rawValue, io.standardOutput, io.standardError)
    }

    static let canonical = "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-1"
    /// `printf %s CANONICAL | md5sum`
    static let viewId = "a5b721d95905e8b7cbd64740d74710e1"

    @Test func printsMatchesAndErrorsForOneAppVersion() throws {
        let f = try Files()
        let r = run(["--config", f.config, "--tree", f.tree, "--id", "btn1", "--event", "ButtonClick", "--app-key", "shop", "--app-version", "1.4.0"])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.isEmpty)
        let expected = #"{"canonical":"\#(Self.canonical)","viewId":"\#(Self.viewId)","#
            + #""matches":[{"rule":"fav-product","keyName":"productId","value":"p-42"}],"#
            + #""errors":[{"rule":"buy-title","keyPath":"product.sku","missingKey":"sku"}]}"# + "\n"
        #expect(r.out == expected)
    }

    @Test func withoutAppKeyOrVersionEveryRuleOfTheEventMatches() throws {
        let f = try Files()
        let r = run(["--config", f.config, "--tree", f.tree, "--id", "btn1", "--event", "ButtonClick"])
        #expect(r.code == 0)
        #expect(r.out.contains(#""matches":[{"rule":"fav-product","keyName":"productId","value":"p-42"},{"rule":"other-app","keyName":"t","value":"Buy"}]"#))
        // Version 2.0 is outside fav-product's range; the button without "Buy" misses buy-title.
        let v2 = run(["--config", f.config, "--tree", f.tree, "--id", "btn1", "--event", "ButtonClick", "--app-version", "2.0"])
        #expect(v2.out.contains(#""matches":[{"rule":"other-app","keyName":"t","value":"Buy"}]"#))
        let btn0 = run(["--config", f.config, "--tree", f.tree, "--id", "btn0", "--event", "ButtonClick", "--app-key", "shop"])
        #expect(btn0.out.hasSuffix(#""matches":[],"errors":[]}"# + "\n"))
        let tap = run(["--config", f.config, "--tree", f.tree, "--id", "btn1", "--event", "ViewTap"])
        #expect(tap.out.contains(#""matches":[{"rule":"tap-only","keyName":"productId","value":"p-42"}]"#))
    }

    @Test func configsMergeInTheOrderGiven() throws {
        let f = try Files()
        let second = f.dir.appendingPathComponent("more.plist").path
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>rules</key><array><dict>
              <key>id</key><string>from-plist</string><key>appKey</key><string>shop</string>
              <key>appVersion</key><string>*</string><key>viewEvent</key><string>ButtonClick</string>
              <key>viewPath</key><string>HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&amp;0-0-0-*-0-1</string>
              <key>keyPath</key><string>product.id</string><key>keyName</key><string>pid</string>
            </dict></array></dict></plist>
            """.write(toFile: second, atomically: true, encoding: .utf8)
        let r = run(["--config", second, "--config", f.config, "--tree", f.tree, "--id", "btn1", "--event", "ButtonClick", "--app-key", "shop"])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains(#""matches":[{"rule":"from-plist","keyName":"pid","value":"p-42"},{"rule":"fav-product","keyName":"productId","value":"p-42"}]"#))
    }

    @Test func errorsExitOneOnStandardError() throws {
        let f = try Files()
        let unknownEvent = run(["--config", f.config, "--tree", f.tree, "--id", "btn1", "--event", "Click"])
        #expect(unknownEvent.code == 2)
        #expect(unknownEvent.out.isEmpty)
        #expect(unknownEvent.err.contains("'Click'") && unknownEvent.err.contains("ButtonClick, ListItemClick, ViewTap, ValueChanged, PageEnter, PageLeave, Scroll"))

        let unknownID = run(["--config", f.config, "--tree", f.tree, "--id", "nope", "--event", "ButtonClick"])
        #expect(unknownID.code == 1)
        #expect(unknownID.err.contains("\"nope\"") && unknownID.err.contains("btn0, label, btn1"))

        let bad = try Files(rules: #"{"rules":[{"id":"x","appKey":"shop","appVersion":"1.x","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"a","keyName":"a"}]}"#, tree: #"{"type":""}"#)
        let badConfig = run(["--config", bad.config, "--tree", f.tree, "--id", "btn1", "--event", "ButtonClick"])
        #expect(badConfig.code == 1)
        #expect(badConfig.err.contains("rules.json") && badConfig.err.contains("1.x"))
        let badTree = run(["--config", f.config, "--tree", bad.tree, "--id", "btn1", "--event", "ButtonClick"])
        #expect(badTree.code == 1)
        #expect(badTree.err.contains("type"))
        let missing = run(["--config", f.config, "--tree", f.dir.appendingPathComponent("none.json").path, "--id", "btn1", "--event", "ButtonClick"])
        #expect(missing.code == 1)
        #expect(missing.err.contains("none.json"))
        let missingConfig = run(["--config", f.dir.appendingPathComponent("none.json").path, "--tree", f.tree, "--id", "btn1", "--event", "ButtonClick"])
        #expect(missingConfig.code == 1)
    }

    @Test func usageErrorsExitTwo() throws {
        let f = try Files()
        #expect(run(["--tree", f.tree, "--id", "btn1", "--event", "ButtonClick"]).code == 2)
        #expect(run(["--config", f.config, "--id", "btn1", "--event", "ButtonClick"]).code == 2)
        #expect(run(["--config", f.config, "--tree", f.tree, "--id", "btn1"]).code == 2)
        let badVersion = run(["--config", f.config, "--tree", f.tree, "--id", "btn1", "--event", "ButtonClick", "--app-version", "one"])
        #expect(badVersion.code == 2)
        #expect(badVersion.err.contains("--app-version"))
        let help = run(["--help"])
        #expect(help.code == 0 && help.out.contains("EXAMPLE") && help.out.contains("--app-version"))
    }
}
