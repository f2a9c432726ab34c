import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import Testing
import TestSupport

/// `autotrack-collector alert` on both stores: the threshold, the window, `--exec` and bad arguments.
@Suite(.timeLimit(.minutes(5))) struct AlertCommandTests {
    func collector(_ args: String...) -> (code: ExitCode, out: String, err: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    static func kvcError(_ id: String, rule: String, at ts: Int64, version: String? = nil, keyPath: String, missing: String) -> JSONValue {
        var props: [(String, JSONValue)] = [("ruleId", .string(rule)), ("appKey", "shop"), ("keyPath", .string(keyPath)), ("missingKey", .string(missing))]
        if let version { props.append(("appVersion", .string(version))) }
        return TestEvents.event(id, type: .kvcError, name: "kvc_error", ts: ts, props: props).json
    }

    /// Recent errors (10 minutes ago): fav-product 3 in 1.2.0 and 1 in 1.3.0 (two key paths),
    /// buy-price 2; old errors (3 hours ago): buy-price 5, of another app 9; a click, not an error.
    static func database(_ kind: FixtureStore) throws -> String {
        let location = try kind.location()
        let store = try kind.open(location)
        defer { store.close() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let recent = now - 600_000
        let old = now - 3 * 3_600_000
        var shop: [JSONValue] = (0..<3).map { kvcError("f\($0)", rule: "fav-product", at: recent, keyPath: "product.id", missing: "id") }
        shop.append(kvcError("f3", rule: "fav-product", at: recent, version: "1.3.0", keyPath: "item.id", missing: "item"))
        shop += (0..<2).map { kvcError("b\($0)", rule: "buy-price", at: recent, keyPath: "product.price", missing: "price") }
        shop += (0..<5).map { kvcError("o\($0)", rule: "buy-price", at: old, keyPath: "product.price", missing: "price") }
        shop.append(TestEvents.event("c", type: .click, name: "BUY", ts: recent).json)
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.2.0", events: shop))
        let news = (0..<9).map { kvcError("n\($0)", rule: "headline", at: old, keyPath: "story.title", missing: "title") }
        _ = try store.append(EventBatch(appKey: "news", appVersion: "4.0", events: news))
        return location
    }

    @Test(arguments: FixtureStore.allCases) func rulesAtOrOverTheThresholdInTheWindowAlert(_ kind: FixtureStore) throws {
        let db = try Self.database(kind)
        // In the last hour: fav-product 4, buy-price 2 (its 5 older errors are outside).
        let two = collector("alert", "--db", db, "--kvc-errors", "2", "--within", "1h")
        #expect(two.code == .failure, "\(two.err)")
        #expect(
            two.out == """
                shop fav-product: 4 kvc errors (versions 1.2.0: 3, 1.3.0: 1), key path item.id, product.id, missing key id, item
                shop buy-price: 2 kvc errors (version 1.2.0: 2), key path product.price, missing key price

                """)
        let four = collector("alert", "--db", db, "--kvc-errors", "4", "--within", "1h")
        #expect(four.code == .failure)
        #expect(four.out.split(separator: "\n").count == 1 && four.out.hasPrefix("shop fav-product: 4 kvc errors"))
        let five = collector("alert", "--db", db, "--kvc-errors", "5", "--within", "1h")
        #expect(five.code == .success, "\(five.err)")
        #expect(five.out == "no rule reached 5 kvc errors in the last 1h\n")
        // A window of a day takes the old errors in: buy-price 7, headline 9.
        let day = collector("alert", "--db", db, "--kvc-errors", "5", "--within", "1d", "--format", "json")
        #expect(day.code == .failure)
        let document = try JSONValue.parse(day.out)
        let rules = try #require(document["rules"]?.arrayValue)
        #expect(rules.map { "\($0["app"]?.stringValue ?? "") \($0["rule"]?.stringValue ?? "") \($0["count"]?.intValue ?? -1)" } == [
            "news headline 9", "shop buy-price 7",
        ])
        #expect(document["kvcErrors"]?.intValue == 5 && document["withinMs"]?.intValue == 86_400_000)
        let since = try #require(document["since"]?.intValue)
        #expect(document["now"]?.intValue == since + 86_400_000)
        // --app narrows to one app; JSON with no rule over is the same document with an empty list, exit 0.
        let shopOnly = collector("alert", "--db", db, "--kvc-errors", "8", "--within", "1d", "--app", "shop", "--format", "json")
        #expect(shopOnly.code == .success)
        let quiet = try JSONValue.parse(shopOnly.out)
        #expect(quiet["rules"]?.arrayValue?.isEmpty == true && quiet["app"]?.stringValue == "shop")
    }

    @Test(arguments: FixtureStore.allCases) func execReceivesTheDocumentOnlyWhenARuleIsOver(_ kind: FixtureStore) throws {
        let db = try Self.database(kind)
        let dir = Fixtures.temporaryDirectory("alert-exec")
        let file = dir.appendingPathComponent("alert.json").path
        let over = collector("alert", "--db", db, "--kvc-errors", "4", "--within", "1h", "--exec", "cat > '\(file)'")
        #expect(over.code == .failure, "\(over.err)")
        let received = try JSONValue.parse(String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self))
        let rule = try #require(received["rules"]?.arrayValue?.first)
        #expect(received["rules"]?.arrayValue?.count == 1)
        #expect(rule["rule"]?.stringValue == "fav-product" && rule["count"]?.intValue == 4)
        #expect(rule["keyPaths"] == ["item.id", "product.id"] && rule["missingKeys"] == ["id", "item"])
        #expect(rule["versions"] == [["version": "1.2.0", "count": 3], ["version": "1.3.0", "count": 1]])
        // Under the threshold CMD does not run.
        let untouched = dir.appendingPathComponent("untouched").path
        let under = collector("alert", "--db", db, "--kvc-errors", "50", "--within", "1h", "--exec", "touch '\(untouched)'")
        #expect(under.code == .success)
        #expect(!FileManager.default.fileExists(atPath: untouched))
    }

    @Test func aFailingOrSlowExecIsReportedWithStatus3() throws {
        let db = try Self.database(.sqlite)
        let failing = collector("alert", "--db", db, "--kvc-errors", "1", "--within", "1h", "--exec", "cat >/dev/null; exit 7")
        #expect(failing.code == ExitCode(3))
        #expect(failing.err.contains("exited with status 7"), "\(failing.err)")
        #expect(failing.out.contains("shop fav-product: 4 kvc errors"))
        let started = ContinuousClock.now
        let slow = collector("alert", "--db", db, "--kvc-errors", "1", "--within", "1h", "--exec", "sleep 30", "--exec-timeout", "300ms")
        #expect(slow.code == ExitCode(3))
        #expect(slow.err.contains("was killed"), "\(slow.err)")
        #expect(ContinuousClock.now - started < .seconds(20))
        let missing = collector("alert", "--db", db + ".absent", "--kvc-errors", "1", "--within", "1h")
        #expect(missing.code == ExitCode(3))
        #expect(missing.err.contains("autotrack-collector alert:"))
    }

    @Test func badArgumentsExit2WithAMessage() throws {
        let db = try Self.database(.sqlite)
        for (args, message) in [
            (["--within", "1h"], "missing required option --kvc-errors"),
            (["--kvc-errors", "3"], "missing required option --within"),
            (["--kvc-errors", "0", "--within", "1h"], "--kvc-errors '0' is not a whole number from 1"),
            (["--kvc-errors", "ten", "--within", "1h"], "--kvc-errors 'ten'"),
            (["--kvc-errors", "3", "--within", "soon"], "--within 'soon' is not a positive duration"),
            (["--kvc-errors", "3", "--within", "0s"], "--within '0s' is not a positive duration"),
            (["--kvc-errors", "3", "--within", "1h", "--format", "html"], "--format 'html' is not one of text, json"),
            (["--kvc-errors", "3", "--within", "1h", "--exec-timeout", "5s"], "--exec-timeout needs --exec"),
            (["--kvc-errors", "3", "--within", "1h", "--exec", ""], "--exec needs a command"),
            (["--kvc-errors", "3", "--within", "1h", "--since", "2026-01-01"], "unknown option '--since'"),
        ] {
            let io = CapturedStreams()
            let code = CollectorCLI.group.main(["alert", "--db", db] + args, io: io)
            #expect(code == .usage, "\(args)")
            #expect(io.standardError.contains(message), "\(args): \(io.standardError)")
            #expect(io.standardOutput.isEmpty)
        }
    }
}
