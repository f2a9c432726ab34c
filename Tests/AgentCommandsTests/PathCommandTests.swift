import AgentCommands
import CommandSupport
import Foundation
import TestSupport
import Testing

/// Runs `autotrack-agent ARGS` in process.
func runAgent(_ args: [String]) -> (out: String, err: String, code: Int32) {
    let io = CapturedStreams()
    let code = AgentCLI.group.main(args, io: io)
    return (io.standardOutput, io.standardError, code.rawValue)
}

/// Writes `bytes` to a fresh temporary file and returns its path.
func temporaryFile(_ bytes: some Sequence<UInt8>, name: String) throws -> String {
    let url = Fixtures.temporaryDirectory("agent-commands").appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
}

@Suite struct PathCommandTests {
    func run(_ args: [String]) -> (out: String, err: String, code: Int32) { runAgent(args) }

    func file(_ text: String) throws -> String { try temporaryFile(Array(text.utf8), name: "tree.json") }

    /// hashlib's MD5 of `HomeViewController&0`, computed offline.
    let md5Home = "198ee06a0ce6c42369cb3dff54d2d308"
    /// hashlib's MD5 of the label's canonical form, computed offline.
    let md5Label = "402aae29d0318606a7efdc61d6e45f4f"

    @Test func printsEveryIdentifiedNodeInDocumentOrder() throws {
        let r = run(["path", "--tree", try file(Fixtures.specExampleTree)])
        #expect(r.code == 0)
        #expect(r.err == "")
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 9)  // eight nodes and the final newline
        #expect(lines.last == "")
        #expect(lines[0] == #"{"id":"home","canonical":"HomeViewController&0","xpath":"HomeViewController[0]","viewId":"\#(md5Home)"}"#)
        #expect(lines[7] == #"{"id":"btn1","canonical":"HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-1","xpath":"HomeViewController[0]/UIView[0]/UITableView[0]/ProductCell[0:2]/UITableViewCellContentView[0]/UIButton[1]","viewId":"a5b721d95905e8b7cbd64740d74710e1"}"#)
        let ids = lines.dropLast().map { line in line.split(separator: "\"")[3] }
        #expect(ids == ["home", "root", "table", "cell", "content", "btn0", "label", "btn1"])
    }

    @Test func printsOnlyTheNodeAskedFor() throws {
        let r = run(["path", "--tree", try file(Fixtures.specExampleTree), "--id", "label"])
        #expect(r.code == 0)
        #expect(r.err == "")
        #expect(r.out == #"{"id":"label","canonical":"HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UILabel&0-0-0-0:2-0-0","xpath":"HomeViewController[0]/UIView[0]/UITableView[0]/ProductCell[0:2]/UITableViewCellContentView[0]/UILabel[0]","viewId":"\#(md5Label)"}"# + "\n")
    }

    @Test func escapesTextAsJSON() throws {
        let r = run(["path", "--tree", try file(#"{"type":"Shop.Home","id":"q\"uote","children":[{"type":"Box<\"A\">","id":"é"}]}"#)])
        #expect(r.code == 0)
        #expect(r.out.contains(#"{"id":"q\"uote","canonical":"Home&0""#))
        #expect(r.out.contains(#""canonical":"Home-Box<\"A\">&0-0""#))
    }

    @Test func anUnknownIDFailsAndListsTheKnownOnes() throws {
        let r = run(["path", "--tree", try file(Fixtures.specExampleTree), "--id", "nope"])
        #expect(r.code == 1)
        #expect(r.out == "")
        #expect(r.err.contains(#"no node has the id "nope""#))
        #expect(r.err.contains(#""btn0""#))
    }

    @Test func aBadTreeFailsNamingTheNode() throws {
        let byID = run(["path", "--tree", try file(#"{"type":"Home","children":[{"id":"buy"}]}"#)])
        #expect(byID.code == 1)
        #expect(byID.out == "")
        #expect(byID.err.contains(#"node "buy" (children[0]) has a missing or empty "type""#))
        let byPosition = run(["path", "--tree", try file(#"{"type":"Home","children":[{"type":"A"},{"type":"Cell","role":"cell","indexPath":[0]}]}"#)])
        #expect(byPosition.code == 1)
        #expect(byPosition.err.contains("node at children[1] has a malformed \"indexPath\""))
        let duplicate = run(["path", "--tree", try file(#"{"type":"Home","id":"x","children":[{"type":"A","id":"x"}]}"#)])
        #expect(duplicate.code == 1)
        #expect(duplicate.err.contains("repeats the id"))
        let notJSON = run(["path", "--tree", try file("{")])
        #expect(notJSON.code == 1)
        #expect(notJSON.err.contains("is not valid JSON"))
    }

    @Test func anUnreadableFileFails() {
        let missing = Fixtures.temporaryDirectory("path-command").appendingPathComponent("absent.json").path
        let r = run(["path", "--tree", missing])
        #expect(r.code == 1)
        #expect(r.out == "")
        #expect(r.err.contains("cannot read the tree file '\(missing)'"))
        let dir = run(["path", "--tree", Fixtures.temporaryDirectory("path-command").path])
        #expect(dir.code == 1)
        #expect(dir.err.contains("cannot read the tree file"))
        #expect(dir.err.contains("is a directory"))
    }

    @Test func aTreeWithoutIDsPrintsNothingAndSaysSo() throws {
        let r = run(["path", "--tree", try file(#"{"type":"Home"}"#)])
        #expect(r.code == 0)
        #expect(r.out == "")
        #expect(r.err.contains("nothing to print"))
    }

    @Test func usageErrorsExitTwo() throws {
        let tree = try file(Fixtures.specExampleTree)
        let cases = [
            ["path"], ["path", "--tree"], ["path", "--tree", tree, "extra"], ["path", "--tree", tree, "--bogus"],
            ["path", "--tree", tree, "--id", "a", "--id", "b"],
        ]
        for args in cases {
            let r = run(args)
            #expect(r.code == 2, "\(args)")
            #expect(r.out == "", "\(args)")
            #expect(r.err.contains("--help"), "\(args)")
        }
    }

    @Test func helpShowsUsageAndAnExample() {
        let r = run(["path", "--help"])
        #expect(r.code == 0)
        #expect(r.out.contains("USAGE: autotrack-agent path --tree FILE [--id ID]"))
        #expect(r.out.contains("EXAMPLE"))
    }
}
