import Collector
import CommandSupport
import EventModel
import EventStore
import SQLiteStore
import SystemCalls
import Foundation
import TestSupport
import Testing

/// Runs the tool in process, as `autotrack-collector ARGS...`.
func collector(_ args: String...) -> (code: ExitCode, out: String, err: String) { collector(args) }

func collector(_ args: [String]) -> (code: ExitCode, out: String, err: String) {
    let io = CapturedStreams()
    let code = CollectorCLI.group.main(args, io: io)
    return (code, io.standardOutput, io.standardError)
}

@Suite struct CollectorCommandTests {
    @Test func topLevelHelpListsEveryCommand() {
        let r = collector("--help")
        #expect(r.code == .success)
        for name in ["serve", "report", "funnel", "retention", "alert", "export", "tail", "rules", "prune", "circle"] { #expect(r.out.contains("  \(name) ")) }
        let none = collector()
        #expect(none.code == .usage)
        #expect(none.err.contains("COMMANDS"))
    }

    @Test(arguments: ["serve", "report", "funnel", "retention", "alert", "export", "tail", "rules"])
    func everyCommandHasHelpWithUsageOptionsAndAnExample(name: String) {
        let r = collector(name, "--help")
        #expect(r.code == .success)
        #expect(r.out.contains("USAGE: autotrack-collector \(name)"))
        #expect(r.out.contains("OPTIONS:"))
        #expect(r.out.contains("EXAMPLE"))
        #expect(r.err.isEmpty)
    }

    @Test(arguments: [
        (["serve", "--listen", "nohost"], "is not HOST:PORT"),
        (["serve", "--listen", "127.0.0.1:99999"], "expected a number from 0 to 65535"),
        (["serve", "--max-frame", "big"], "--max-frame takes a whole number"),
        (["serve", "--idle-timeout", "0"], "--idle-timeout takes a number"),
        (["serve", "--durability", "maybe"], "is not full or normal"),
        (["serve", "--admin-token", ""], "must not be empty"),
        (["serve", "extra"], "unexpected argument 'extra'"),
        (["report", "--format", "pdf"], "is not one of table, json, csv, html"),
        (["report", "--bogus"], "unknown option '--bogus'"),
        (["rules"], "say what to do"),
        (["rules", "delete"], "unknown rules action 'delete'"),
        (["rules", "publish", "--to", "127.0.0.1:1", "--token", "t"], "at least one rule file"),
        (["rules", "publish", "a.json", "--token", "t"], "needs --to HOST:PORT"),
        (["rules", "list", "a.json"], "takes no file"),
        (["rules", "list", "--to", "127.0.0.1:1"], "belong to 'rules publish'"),
    ])
    func badArgumentsExitTwoAndSayWhatToFix(args: [String], message: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        #expect(code == .usage)
        #expect(io.standardError.contains(message), "stderr: \(io.standardError)")
        #expect(io.standardError.contains("--help"))
        #expect(io.standardOutput.isEmpty)
    }

    @Test func unknownCommandIsAUsageError() {
        let r = collector("collect")
        #expect(r.code == .usage)
        #expect(r.err.contains("unknown command 'collect'"))
    }

    @Test func reportOfAMissingDatabaseFailsWithoutCreatingIt() {
        let path = Fixtures.temporaryDirectory("cli").appendingPathComponent("missing.sqlite").path
        let r = collector("report", "--db", path)
        #expect(r.code == .failure)
        #expect(r.err.contains("no database at \(path)"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func reportPrintsEachFormat() throws {
        let store = try ReportFixture.make()
        let table = collector("report", "--db", store.path)
        #expect(table.code == .success)
        #expect(table.out.hasPrefix("Autotrack report: \(store.path)\n"))
        let json = collector("report", "--db", store.path, "--format", "json")
        #expect(try JSONValue.parse(json.out)["totals"]?["events"] == 21)
        let csv = collector("report", "--db", store.path, "--format=csv")
        #expect(csv.out.hasPrefix("section,app,subject,detail,count,mean_ms\r\n"))
        let html = collector("report", "--db", store.path, "--format", "html")
        #expect(html.out.hasPrefix("<!DOCTYPE html>"))
    }

    @Test func reportWritesToAFile() throws {
        let store = try ReportFixture.make()
        let out = Fixtures.temporaryDirectory("cli").appendingPathComponent("report.html").path
        let r = collector("report", "--db", store.path, "--format", "html", "--out", out)
        #expect(r.code == .success)
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(r.out == "wrote html report to \(out) (\(written.utf8.count) bytes)\n")
        #expect(written.contains("<svg"))

        let bad = collector("report", "--db", store.path, "--out", "/nonexistent-dir/x/report.txt")
        #expect(bad.code == .failure)
        #expect(bad.err.contains("cannot write /nonexistent-dir/x/report.txt"))
    }

    /// `--out` names a FIFO (as `/dev/null` or `/dev/stdout` are devices): the report goes into
    /// it, and it stays a FIFO. Replacing it with a regular file (a whole-file write through a
    /// file beside it) once turned the machine's `/dev/null` into a file.
    @Test(.timeLimit(.minutes(3))) func reportWritesIntoADeviceOrFIFOInPlace() throws {
        let store = try ReportFixture.make()
        let directory = Fixtures.temporaryDirectory("cli-fifo")
        let fifo = directory.appendingPathComponent("report.fifo").path
        let copy = directory.appendingPathComponent("copy.txt").path
        try #require(try runProgram("/usr/bin/mkfifo", [fifo], timeout: 30).status == 0)
        // A reader at the other end: `cat` waits for a writer, copies what it writes, and ends
        // when it closes; killed after 20 s whatever happened (SIGKILL: a child of the test
        // process may inherit SIGTERM blocked).
        let reader = try ChildProgram("/bin/sh", arguments: ["-c", "exec timeout -s KILL 20 cat \"$0\" > \"$1\"", fifo, copy])
        let r = collector("report", "--db", store.path, "--format", "json", "--out", fifo)
        _ = reader.waitForExit(within: .seconds(30))
        #expect(r.code == .success)
        // Still the FIFO (Foundation has no type of its own for one), not a regular file.
        #expect(try FileManager.default.attributesOfItem(atPath: fifo)[.type] as? FileAttributeType == .typeUnknown)
        let copied = try String(contentsOfFile: copy, encoding: .utf8)
        #expect(try JSONValue.parse(copied)["totals"]?["events"] == 21)
    }

    @Test func reportThroughASymbolicLinkWritesTheFileItNames() throws {
        let store = try ReportFixture.make()
        let directory = Fixtures.temporaryDirectory("cli-link")
        let file = directory.appendingPathComponent("report.json").path
        let link = directory.appendingPathComponent("latest.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let r = collector("report", "--db", store.path, "--format", "json", "--out", link)
        #expect(r.code == .success)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file)
        #expect(try JSONValue.parse(String(contentsOfFile: file, encoding: .utf8))["totals"]?["events"] == 21)
    }

    @Test func rulesListPrintsATable() throws {
        let store = try ReportFixture.make()
        let r = collector("rules", "list", "--db", store.path)
        #expect(r.code == .success)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("app   id           app version  view event     view path"))
        #expect(lines[1].hasPrefix("shop  fav-product  >=1.0.0      ListItemClick  HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*"))
        #expect(lines[2].contains("buy-price") && lines[2].contains("Buy"))
        let news = collector("rules", "list", "--db", store.path, "--app", "news")
        #expect(news.out == "no rules published for app news\n")
    }

    @Test func rulesPublishSendsTheFilesRules() throws {
        let server = try RunningCollector()
        let dir = Fixtures.temporaryDirectory("cli")
        let file = dir.appendingPathComponent("rules.json")
        let doc: JSONValue = ["rules": [rule("a", appKey: "shop", version: ">=1.0"), rule("b", appKey: "shop", version: "*")]]
        try Data(doc.jsonText.utf8).write(to: file)
        let to = "\(server.address)"

        let ok = collector("rules", "publish", file.path, "--to", to, "--token", "admin-secret")
        #expect(ok.code == .success, "stderr: \(ok.err)")
        #expect(ok.out == "stored 2 rules at \(to)\n")
        #expect(try SQLiteEventStore(path: server.dbPath, options: StoreOptions(access: .existing)).rules().map(\.id) == ["a", "b"])
        let sampled = collector("rules", "publish", file.path, "--to", to, "--token", "admin-secret", "--sample-rate", "0.5")
        #expect(sampled.code == .success, "stderr: \(sampled.err)")
        #expect(try SQLiteEventStore(path: server.dbPath, options: StoreOptions(access: .readOnly)).ruleSet(appKey: "shop")?.sampleRate == 0.5)
        #expect(collector("rules", "publish", file.path, "--to", to, "--token", "t", "--sample-rate", "1.5").code == .usage)

        let wrong = collector("rules", "publish", file.path, "--to", to, "--token", "guess")
        #expect(wrong.code == .failure)
        #expect(wrong.err.contains("forbidden"))
        #expect(wrong.err.contains("--admin-token"))

        let broken = dir.appendingPathComponent("broken.json")
        try Data(#"{"rules":[{"id":"x","appKey":"shop","viewEvent":"Hover","viewPath":"A&0","keyPath":"a","keyName":"a"}]}"#.utf8)
            .write(to: broken)
        let invalid = collector("rules", "publish", broken.path, "--to", to, "--token", "admin-secret")
        #expect(invalid.code == .failure)
        #expect(invalid.err.contains("nothing was sent"))
        #expect(invalid.err.contains("broken.json"))

        let missing = collector("rules", "publish", dir.appendingPathComponent("nope.json").path, "--to", to, "--token", "t")
        #expect(missing.code == .failure)
        #expect(missing.err.contains("nope.json"))
    }

    @Test func rulesPublishToNobodySaysSo() throws {
        // Port 1 (tcpmux) on loopback: nothing listens there, and no test server can take it.
        let address = "127.0.0.1:1"
        let file = Fixtures.temporaryDirectory("cli").appendingPathComponent("rules.json")
        try Data(JSONValue(["rules": [rule("a", appKey: "shop", version: "*")]]).jsonText.utf8).write(to: file)
        let r = collector("rules", "publish", file.path, "--to", "\(address)", "--token", "t", "--timeout", "5")
        #expect(r.code == .failure)
        #expect(r.err.contains("Is 'autotrack-collector serve' running at \(address)?"))
    }

    @Test func serveFailsCleanlyWhenItCannotStart() throws {
        let busy = try RunningCollector()
        let db = Fixtures.temporaryDirectory("cli").appendingPathComponent("serve.sqlite").path
        let r = collector("serve", "--listen", "\(busy.address)", "--db", db)
        #expect(r.code == .failure)
        #expect(r.err.contains("cannot listen on \(busy.address)"))
        #expect(r.err.contains("Another process uses this port"))

        let noDir = collector("serve", "--listen", "127.0.0.1:0", "--db", "/nonexistent-dir/x/events.sqlite")
        #expect(noDir.code == .failure)
        #expect(noDir.err.contains("cannot open the database /nonexistent-dir/x/events.sqlite"))
        #expect(noDir.out.isEmpty)
    }
}

extension JSONValue {
    init(_ v: JSONValue) { self = v }
}

/// `report` only reads (docs/reports.md): a foreign file, or an `--out` that is the database, is refused unchanged.
@Suite struct ReportSafetyTests {
    @Test func aForeignSQLiteFileIsRefusedAndLeftUnchanged() throws {
        let path = Fixtures.temporaryDirectory("foreign").appendingPathComponent("crm.sqlite").path
        _ = try sqlite(path, "CREATE TABLE customers (id INTEGER PRIMARY KEY); INSERT INTO customers VALUES (1);")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let r = collector("report", "--db", path)
        #expect(r.code == .failure)
        #expect(r.err.contains("is not an Autotrack database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try sqlite(path, "PRAGMA journal_mode; PRAGMA user_version; SELECT name FROM sqlite_master") == ["delete", "0", "customers"])
        let list = collector("rules", "list", "--db", path)
        #expect(list.code == .failure)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func anOutThatIsTheDatabaseIsRefused() throws {
        let store = try ReportFixture.make()
        store.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let link = Fixtures.temporaryDirectory("out").appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store.path)
        for out in [store.path, link, store.path.replacingOccurrences(of: "/fixture.sqlite", with: "/./fixture.sqlite")] {
            let r = collector("report", "--db", store.path, "--format", "csv", "--out", out)
            #expect(r.code == .usage)
            #expect(r.err.contains("is the database itself"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
    }

    /// The audit's case: `--out c.sqlite-wal` replaced the log holding committed events (exit 0).
    @Test func anOutThatIsOneOfTheDatabasesCompanionFilesIsRefused() throws {
        let store = try ReportFixture.make()  // open: its committed events are in the -wal file
        defer { store.close() }
        let events = try CollectorReport(store: store).totals.events
        #expect(events > 0)
        for suffix in ["-wal", "-shm", "-journal"] {
            let r = collector("report", "--db", store.path, "--out", store.path + suffix)
            #expect(r.code == .usage, "\(suffix): \(r.err)")
            #expect(r.err.contains("--out \(store.path + suffix) is the database's \(suffix) file"), "\(r.err)")
        }
        let reader = try SQLiteEventStore(path: store.path, options: StoreOptions(access: .readOnly))
        defer { reader.close() }
        #expect(try CollectorReport(store: reader).totals.events == events)
    }

    /// Only `serve` makes a database: every other command refuses a missing path, an empty file
    /// and a foreign SQLite file, saying which, and leaves the file as it was.
    @Test func everyCommandButServeRefusesWhatIsNotAnAutotrackDatabase() throws {
        let dir = Fixtures.temporaryDirectory("not-a-db")
        let empty = dir.appendingPathComponent("empty.sqlite").path
        let missing = dir.appendingPathComponent("missing.sqlite").path
        let commands: [[String]] = [
            ["report"], ["funnel", "--app", "shop", "--step", "click:A", "--step", "click:B"],
            ["retention", "--app", "shop", "--start", "click:A", "--return", "click:B"],
            ["export"], ["tail", "--timeout", "0.1"], ["rules", "list"], ["prune", "--before", "2026-01-01"],
        ]
        for command in commands {
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            let r = collector(command + ["--db", empty])
            #expect(r.code == .failure, "\(command): \(r.err)")
            #expect(r.err.contains("\(empty) is an empty file, not an Autotrack database"), "\(command): \(r.err)")
            #expect(r.err.contains("give the --db file that 'serve' writes"), "\(command): \(r.err)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty, "\(command) left the empty file empty")
            let gone = collector(command + ["--db", missing])
            #expect(gone.code == .failure, "\(command): \(gone.err)")
            #expect(gone.err.contains("no database at \(missing)"), "\(command): \(gone.err)")
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }

    @Test func csvCellsAFormulaWouldRunAreNeutralized() throws {
        let path = Fixtures.temporaryDirectory("csv").appendingPathComponent("csv.sqlite").path
        let store = try SQLiteEventStore(path: path)
        let names = ["=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)", "\tTab", "\rCR", "plain"]
        _ = try store.append(
            EventBatch(appKey: "shop", events: names.enumerated().map { i, n in ["id": .string("e\(i)"), "ts": 1, "type": "custom", "name": .string(n)] }))
        let csv = ReportCSVRenderer().render(try CollectorReport(store: store))
        for n in names.dropLast() {
            #expect(csv.contains("event,,\(ReportCSVRendererField.quoted("'" + n)),custom,1,"), "\(n)")
        }
        #expect(csv.contains("event,,plain,custom,1,"))
    }
}

/// RFC 4180 quoting as the test expects it (the renderer's own is internal).
enum ReportCSVRendererField {
    static func quoted(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
