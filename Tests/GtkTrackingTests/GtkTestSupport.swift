import Collector
import Foundation
import TestSupport
import SystemCalls

/// The built programs the GTK tests run.
enum Built {
    static var agent: String { path("autotrack-agent") }
    static var shop: String { path("autotrack-gtk-shop") }
    static var collector: String { path("autotrack-collector") }
    /// The web view test's own WebKitGTK app (Tests/GtkWebViewSample).
    static var webViewSample: String { path("gtk-webview-sample") }

    private static func path(_ name: String) -> String {
        Fixtures.repositoryRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    static func example(_ file: String) -> String { Fixtures.repositoryRoot.appendingPathComponent("Examples/\(file)").path }
}

/// A collector in the test's process (loopback, ephemeral port, temporary database) and the
/// events it stored, read with the sqlite3 shell as a user would.
final class TestCollector {
    let collector: EmbeddedCollector
    let address: SocketAddress
    let db: String

    /// With `tls`, the collector speaks TLS only, with that certificate. With the default `access`
    /// anyone may send, nobody may publish rules, and the pictures of `--snapshots` agents are taken.
    init(directory: URL, tls: TestCertificate? = nil, access: CollectorAccess = CollectorAccess(acceptsUnaskedSnapshots: true)) throws {
        db = directory.appendingPathComponent("events.sqlite").path
        var options = EmbeddedCollector.Options()
        options.access = access
        options.tlsCertificate = tls?.certificate
        options.tlsKey = tls?.key
        collector = EmbeddedCollector(dbPath: db, options: options)
        address = try collector.start()
    }

    deinit { collector.stop() }

    /// Every stored event, in arrival order, as JSON objects with the wire field names.
    func events() throws -> [[String: Any]] { try storedEvents(db: db) }

    /// Waits until at least `count` events are stored; returns them.
    func events(atLeast count: Int, within seconds: Double = 20) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [[String: Any]] = []
        while Date() < deadline {
            last = try events()
            if last.count >= count { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessFailure("\(last.count) events stored, expected at least \(count): \(last.map { $0["name"] ?? "?" })")
    }
}

/// Every event stored in the collector database `db`, in arrival order, as JSON objects with the
/// wire field names (and `appKey`), read with the sqlite3 shell as a user would.
func storedEvents(db: String) throws -> [[String: Any]] {
    let sql = """
        SELECT json_object('appKey',app_key,'ts',ts,'type',type,'name',name,'page',page,'path',path,'viewId',view_id,'session',session,
          'duration',duration,'props',json(props)) FROM events ORDER BY seq
        """
    return try sqlite(db, sql).map { line in
        guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessFailure("not a JSON object from the store: \(line)")
        }
        return o
    }
}

/// NDJSON events as written by `run --out`.
func ndjsonEvents(_ file: URL) throws -> [[String: Any]] {
    let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    return try text.split(separator: "\n").map { line in
        guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessFailure("not a JSON object: \(line)")
        }
        return o
    }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }
    var props: [String: Any] { self["props"] as? [String: Any] ?? [:] }
}
