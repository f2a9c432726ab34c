import Foundation
import Testing
import TestSupport

/// Reads past one machine (docs/postgres.md "Reads on a standby"): the read commands and the
/// studio's reads against a real hot standby, which `pg_basebackup -R` makes of the primary two
/// real collectors write to, answer as the primary does and never try to write.
@Suite struct PostgresStandbyTests {
    /// People visiting on several days: page views, purchases, and key paths that broke.
    static func shopEvents(users: Int = 120, days: Int = 4) -> (first: Data, second: Data) {
        var first = "", second = ""
        var n = 0
        for day in 0..<days {
            for u in 0..<users where (u + day) % 3 != 0 {
                let ts = 1_767_225_600_000 + Int64(day) * 86_400_000 + Int64(u) * 1_000
                let who = #""user":"u-\#(u)","device":"d-\#(u)","session":"s-\#(u)-\#(day)""#
                var lines = [#"{"id":"p-\#(n)","ts":\#(ts),"type":"page_enter","name":"Home",\#(who)}"#]
                if u % 2 == 0 { lines.append(#"{"id":"c-\#(n)","ts":\#(ts + 400),"type":"click","name":"buy",\#(who)}"#) }
                if u % 7 == 0 {
                    lines.append(
                        #"{"id":"k-\#(n)","ts":\#(ts + 500),"type":"kvc_error","name":"kvc_error",\#(who),"props":{"ruleId":"price","keyPath":"product.price"}}"#)
                }
                n += 1
                let text = lines.joined(separator: "\n") + "\n"
                if u % 2 == 0 { first += text } else { second += text }
            }
        }
        return (Data(first.utf8), Data(second.utf8))
    }

    /// Another app's events, which writers keep sending while the shop is read on the standby.
    static func otherAppEvents(count: Int) -> Data {
        var text = ""
        for i in 0..<count {
            text += #"{"id":"o-\#(i)","ts":\#(1_767_225_600_000 + Int64(i)),"type":"click","name":"other","user":"o-\#(i % 50)"}"# + "\n"
        }
        return Data(text.utf8)
    }

    /// The read commands a team runs, with the database URI last so each can be pointed at either server.
    static let reads: [[String]] = [
        ["report", "--app", "shop", "--format", "json"],
        ["funnel", "--app", "shop", "--step", "page_enter:Home", "--step", "click:buy", "--format", "json"],
        ["retention", "--app", "shop", "--start", "page_enter:Home", "--return", "click:buy", "--format", "json"],
        ["export", "--app", "shop", "--format", "ndjson"],
        ["alert", "--app", "shop", "--kvc-errors", "1", "--within", "3650d", "--format", "json"],
    ]

    /// An answer without what differs between any two runs: the database it names, and the clock.
    static func stable(_ out: String) -> String {
        guard let data = out.data(using: .utf8), var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return out
        }
        for key in ["database", "generatedAt", "now", "since"] { object[key] = nil }
        let text = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return text.map { String(decoding: $0, as: UTF8.self) } ?? out
    }

    static func read(_ arguments: [String], _ uri: String) throws -> CommandResult {
        try runCommand(Binaries.collector, [arguments[0], "--db", uri] + arguments.dropFirst(), within: 120)
    }

    static func send(_ data: Data, app: String, to collector: PostgresEndToEndTests.Collector, spool: URL) throws -> ChildProcess {
        let p = try ChildProcess(
            Binaries.agent,
            ["send", "--to", collector.address, "--app-key", app, "--app-version", "1.2.0", "--spool", spool.path, "--batch-events", "200", "-"],
            pipeStandardInput: true)
        let stdin = try #require(p.standardInput)
        try stdin.write(contentsOf: data)
        try stdin.close()
        return p
    }

    @Test func theReadCommandsOnAHotStandbyAnswerAsThePrimaryWhileCollectorsWrite() throws {
        let primary = try PostgresServer()
        defer { primary.stop() }
        let uri = primary.uri()
        let dir = Fixtures.temporaryDirectory("e2e-pg-standby")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try PostgresEndToEndTests.Collector(uri)
        let b = try PostgresEndToEndTests.Collector(uri)
        defer { a.process.kill(); b.process.kill() }
        // The standby is made while the collectors are up, then follows what they store.
        let standby = try primary.startStandby()
        defer { standby.stop() }
        let standbyURI = standby.uri()

        let (first, second) = Self.shopEvents()
        let shop = [try Self.send(first, app: "shop", to: a, spool: dir.appendingPathComponent("s1")),
                    try Self.send(second, app: "shop", to: b, spool: dir.appendingPathComponent("s2"))]
        for s in shop { #expect(try s.waitForExit(within: 240) == 0, "send failed: \(s.standardError)") }

        // Writers go on with another app while the shop is read on the standby.
        let writers = [try Self.send(Self.otherAppEvents(count: 20_000), app: "other", to: a, spool: dir.appendingPathComponent("o1")),
                       try Self.send(Self.otherAppEvents(count: 20_000), app: "other", to: b, spool: dir.appendingPathComponent("o2"))]
        defer { writers.forEach { $0.kill() } }
        var caughtUp = false
        for _ in 0..<300 where !caughtUp {
            caughtUp = try standby.hasReplayed(primary)
            if !caughtUp { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(caughtUp, "the standby did not replay the shop's events within 30 s")

        for arguments in Self.reads {
            let onPrimary = try Self.read(arguments, uri)
            let onStandby = try Self.read(arguments, standbyURI)
            #expect(onStandby.status == onPrimary.status, "\(arguments[0]) on the standby: \(onStandby.err)")
            #expect(
                Self.stable(onStandby.out) == Self.stable(onPrimary.out), "\(arguments[0]) answered otherwise on the standby: \(onStandby.err)")
            #expect(!onStandby.out.isEmpty, "\(arguments[0]) printed nothing")
            #expect(!onStandby.err.contains("read-only"), "\(arguments[0]) tried to write on the standby: \(onStandby.err)")
        }
        for w in writers { #expect(try w.waitForExit(within: 240) == 0, "send failed: \(w.standardError)") }
    }
}
