@testable import Collector
import CommandSupport
import EventStore
import Testing

/// A database password never reaches a message, a log line or a report header (docs/security.md).
@Suite struct DatabasePasswordTests {
    /// Each fails before any query: refused connection, an option libpq refuses, a malformed
    /// token libpq echoes in its error, a `password=` parameter.
    static let unreachable = [
        "postgresql://user:PASSWORD@127.0.0.1:1/db",
        "postgresql://user:PASSWORD@127.0.0.1:1/db?sslmode=bogus",
        "postgresql://user:PASS%zzWORD@127.0.0.1:1/db",
        "postgresql://user:PASS%41WORD@127.0.0.1:1/db?x=1",
        "postgres:///db?host=/nonexistent&password=PASSWORD&user=u",
    ]

    @Test func noCommandPrintsThePasswordOfADatabaseItCannotOpen() {
        let commands: [[String]] = [
            ["serve", "--listen", "127.0.0.1:0"], ["report"], ["report", "--format", "html"],
            ["funnel", "--app", "shop", "--step", "click:A", "--step", "click:B", "--format", "html"],
            ["retention", "--app", "shop", "--start", "click:A", "--return", "click:B"], ["export"],
            ["tail", "--timeout", "0.1"], ["rules", "list"], ["prune", "--before", "2026-01-01"],
        ]
        for uri in Self.unreachable {
            for command in commands {
                let r = collector(command + ["--db", uri])
                #expect(r.code == .failure, "\(command) \(uri): \(r.err)")
                #expect(!r.err.isEmpty)
                #expect(!(r.out + r.err).contains("PASS"), "\(command) \(uri): \(r.out) \(r.err)")
            }
        }
    }

    @Test func theHTMLPageNamesTheDatabaseWithoutItsPassword() {
        let page = AnalyticsHTML.page(title: "Funnel", database: "postgresql://u:PASSWORD@db/a", filter: EventFilter(), body: "")
        #expect(page.contains("postgresql://u@db/a"))
        #expect(!page.contains("PASSWORD"))
    }
}
