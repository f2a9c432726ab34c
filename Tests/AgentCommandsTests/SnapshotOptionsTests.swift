@testable import AgentCommands
import CommandSupport
import Foundation
import ProgramLaunch
import SQLiteStore
import EventModel
import EventStore
import TestSupport
import Testing

/// `--snapshots` on `run` and `demo` (docs/agent.md "Snapshots").
@Suite struct SnapshotOptionsTests {
    @Test func runSnapshotsReachesThePreloadAndNeedsACollector() throws {
        var arguments = Arguments(["--to", "127.0.0.1:1", "--snapshots", "--", "autotrack-gtk-shop"])
        let command = try RunCommand(arguments: &arguments)
        let environment = command.settings.environment
        #expect(environment[LaunchSettings.snapshotsKey] == "1")
        #expect(LaunchSettings(environment: environment, program: "autotrack-gtk-shop") == command.settings)
        var without = Arguments(["--to", "127.0.0.1:1", "--", "autotrack-gtk-shop"])
        #expect(try RunCommand(arguments: &without).settings.environment[LaunchSettings.snapshotsKey] == nil)
        var noCollector = Arguments(["--snapshots", "--", "autotrack-gtk-shop"])
        #expect(throws: UsageError.self) { try RunCommand(arguments: &noCollector) }
    }
}

/// The simulated shop's snapshots, through the embedded collector into its store.
@Suite(.serialized) struct DemoSnapshotTests {
    static func storedSnapshots(_ db: String) throws -> [Snapshot] {
        let store = try SQLiteEventStore(path: db)
        return try store.snapshots(appKey: "shop", appVersion: nil).compactMap { try store.snapshot(id: $0.id) }
    }

    /// Every page entered arrives: its PNG at its size, its tree with frames, paths and props.
    static func check(_ snapshots: [Snapshot]) throws {
        #expect(snapshots.count == 5, "\(snapshots.map(\.page))")
        #expect(Set(snapshots.map(\.page)) == ["HomeViewController", "DetailViewController(gift)", "DetailViewController"])
        for s in snapshots {
            #expect(s.png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            let ihdr = s.png[16..<24].map(Int.init)
            #expect(ihdr[0] << 24 | ihdr[1] << 16 | ihdr[2] << 8 | ihdr[3] == s.width && s.width == 360)
            #expect(ihdr[4] << 24 | ihdr[5] << 16 | ihdr[6] << 8 | ihdr[7] == s.height)
            let tree = try JSONValue.parse(Array(s.tree.utf8))
            #expect(tree["path"]?.stringValue == s.page + "&0")
            #expect(tree["frame"] == [0, 0, 360, .int(Int64(s.height))])
        }
        let gift = try #require(snapshots.first { $0.page == "DetailViewController(gift)" })
        let tree = try JSONValue.parse(Array(gift.tree.utf8))
        #expect(tree["props"]?["product.id"] == "p-3", "the page's stored struct, by key path")
    }

    @Test(.timeLimit(.minutes(5))) func demoSnapshotsSendsEveryPageEntered() throws {
        let dir = Fixtures.temporaryDirectory("demo-snapshots")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("demo.sqlite").path
        let io = CapturedStreams()
        let code = AgentCLI.group.main(["demo", "--snapshots", "--db", db, "--format", "json"], io: io)
        #expect(code == .success, "\(io.standardError)")
        #expect(io.standardError.contains("5 of 5 page snapshots acknowledged"))
        try Self.check(try Self.storedSnapshots(db))
    }

    @Test(.timeLimit(.minutes(5))) func aPageThePlanIgnoresIsSnapshottedBlankAndMakesNoEvents() throws {
        let dir = Fixtures.temporaryDirectory("demo-snapshots-ignored")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("demo.sqlite").path
        let io = CapturedStreams()
        let config = Fixtures.repositoryRoot.appendingPathComponent("Examples/shop-privacy.json").path
        let code = AgentCLI.group.main(["demo", "--snapshots", "--config", config, "--db", db, "--format", "json"], io: io)
        #expect(code == .success, "\(io.standardError)")
        let snapshots = try Self.storedSnapshots(db)
        let gift = try #require(snapshots.first { $0.page == "DetailViewController(gift)" })
        #expect(!gift.tree.contains("\"props\"") && !gift.tree.contains("\"title\""), "\(gift.tree.prefix(300))")
        let other = try #require(snapshots.first { $0.page == "DetailViewController" })
        #expect(other.tree.contains("\"props\"") && other.tree.contains("\"title\""))
        var paths: [String] = []
        try SQLiteEventStore(path: db).scan(EventScanQuery()) { event in
            paths.append(event.path ?? "-")
            return true
        }
        #expect(paths.count > 10)
        #expect(!paths.contains { $0.hasPrefix("DetailViewController(gift)") })
    }

    @Test(.timeLimit(.minutes(5))) func circleModeOnTheCollectorTurnsThemOnAndOffWithoutIt() throws {
        let dir = Fixtures.temporaryDirectory("demo-circle")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("demo.sqlite").path
        let quiet = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--db", db, "--format", "json"], io: quiet) == .success)
        #expect(try Self.storedSnapshots(db).isEmpty, "no circle mode, no snapshots")
        #expect(!quiet.standardError.contains("snapshots acknowledged"))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try SQLiteEventStore(path: db).setCircleMode(appKey: "shop", until: now + 600_000)
        let io = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--db", db, "--format", "json"], io: io) == .success, "\(io.standardError)")
        #expect(io.standardError.contains("5 of 5 page snapshots acknowledged"), "\(io.standardError)")
        try Self.check(try Self.storedSnapshots(db))
    }
}
