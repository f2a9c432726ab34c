import AgentCommands
import CommandSupport
import Foundation
import Testing
import TestSupport

/// Writes files into a fresh temporary directory and returns its path.
private func files(_ contents: [String: String]) -> String {
    let dir = Fixtures.temporaryDirectory("check-command")
    for (name, text) in contents {
        #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data(text.utf8)))
    }
    return dir.path
}

@Suite struct CheckCommandTests {
    static let events = """
        {"HomeViewController": {
          "PageEventIDs": {"Enter": "EVENT_HOME_ENTER_PAGE", "Leave": "EVENT_HOME_LEAVE_PAGE"},
          "ControlEventIDs": {"onFavBtnPressed:": "CTRL_EVENT_HOME_FAV", "onShareBtnPressed:": "CTRL_EVENT_HOME_SHARE"}}}
        """
    static let rulesPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>rules</key><array><dict>
          <key>id</key><string>fav-product</string><key>appKey</key><string>shop</string>
          <key>appVersion</key><string>&gt;=1.2.0 &lt;2.0.0</string><key>viewEvent</key><string>ListItemClick</string>
          <key>viewPath</key><string>HomeViewController-UIView-UITableView-ProductCell&amp;0-0-0-0:*</string>
          <key>keyPath</key><string>product.id</string><key>keyName</key><string>productId</string>
        </dict></array></dict></plist>
        """

    func run(_ args: [String]) -> (ExitCode, String, String) {
        let io = CapturedStreams()
        let code = AgentCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    @Test func passingCheckPrintsOneSummaryLine() {
        let dir = files([
            "events.json": Self.events, "rules.plist": Self.rulesPlist,
            "inventory.json": #"{"HomeViewController":["onFavBtnPressed:","onShareBtnPressed:","viewDidLoad"]}"#,
        ])
        let (code, out, err) = run(["check", "--config", dir + "/events.json", "--config", dir + "/rules.plist", "--inventory", dir + "/inventory.json"])
        #expect(code == .success)
        #expect(err == "")
        #expect(
            out == "ok: 1 classes, 2 actions and 1 rules in 2 files match the inventory of 1 classes; every _UA action is tracked\n")
    }

    @Test func renamedMethodIsReportedAndExitsOne() {
        let dir = files([
            "events.json": Self.events,
            "inventory.json": #"{"HomeViewController":["onMyFavBtnPressed_UA:","onShareBtnPressed:"]}"#,
        ])
        let (code, out, err) = run(["check", "--config", dir + "/events.json", "--inventory", dir + "/inventory.json"])
        #expect(code == .failure)
        #expect(
            out == """
                missing-action -[HomeViewController onFavBtnPressed:]: configured at \(dir)/events.json: HomeViewController.ControlEventIDs.onFavBtnPressed:, but HomeViewController in the inventory has no such action
                untracked-marker -[HomeViewController onMyFavBtnPressed_UA:]: the action carries the _UA marker, but no configuration tracks it

                """)
        #expect(err == "autotrack-agent check: 2 problems found\n")
    }

    @Test func inventoryMayBeASourceDirectory() {
        let dir = files([
            "events.json": Self.events,
            "Home.swift": """
                class HomeViewController {
                    @objc func onFavBtnPressed(_ sender: UIButton) {}
                    @IBAction func onShareBtnPressed(_ sender: Any) {}
                }
                """,
        ])
        let (code, out, _) = run(["check", "--config", dir + "/events.json", "--inventory", dir])
        #expect(code == .success, "\(out)")
    }

    @Test func configThatFailsToLoadGoesToStandardError() {
        let dir = files([
            "bad.json": #"{"rules":[{"id":"r","appKey":"a","appVersion":"~1.0","viewEvent":"Tap","viewPath":"A&0","keyPath":"x","keyName":"k"}]}"#,
            "inventory.json": "{}",
        ])
        let (code, out, err) = run(["check", "--config", dir + "/bad.json", "--inventory", dir + "/inventory.json"])
        #expect(code == .failure)
        #expect(out == "")
        let lines = err.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("autotrack-agent check: \(dir)/bad.json: rules[0].appVersion: expected a version range"))
        #expect(lines[0].contains("found version range \"~1.0\""))
        #expect(lines[1].hasPrefix("autotrack-agent check: \(dir)/bad.json: rules[0].viewEvent: expected one of ButtonClick"))
        #expect(lines[2].contains("fix the errors above"))
    }

    @Test func badInventoryAndMissingFilesGoToStandardError() {
        let dir = files(["events.json": Self.events, "inventory.json": #"{"HomeViewController":"onFav:"}"#])
        let (code, out, err) = run(["check", "--config", dir + "/events.json", "--config", dir + "/gone.json", "--inventory", dir + "/inventory.json"])
        #expect(code == .failure)
        #expect(out == "")
        #expect(err.contains("autotrack-agent check: \(dir)/gone.json: expected a readable file, found no such file"))
        #expect(err.contains("autotrack-agent check: \(dir)/inventory.json: HomeViewController: expected an array of action names"))
    }

    @Test func usageErrorsExitTwo() {
        for args in [["check"], ["check", "--config", "a.json"], ["check", "--inventory", "i.json"], ["check", "--config", "a", "--inventory", "i", "extra"]] {
            let (code, out, err) = run(args)
            #expect(code == .usage, "\(args)")
            #expect(out == "")
            #expect(err.contains("Run 'autotrack-agent check --help'"))
        }
    }

    @Test func helpHasUsageOptionsAndExample() {
        let (code, out, _) = run(["check", "--help"])
        #expect(code == .success)
        for s in ["USAGE: autotrack-agent check", "--config FILE", "--inventory", "EXAMPLES:", "missing-action -[Class action:]"] {
            #expect(out.contains(s))
        }
    }
}
