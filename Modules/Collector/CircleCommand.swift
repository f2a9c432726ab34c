public import CommandSupport
import EventStore
import Foundation
import SystemCalls

/// `circle`: turns circle mode on for an app key for some minutes, or off, without the studio.
public struct CircleCommand: Command {
    public static let name = "circle"
    public static let abstract = "turns circle mode (agents sending page snapshots) on or off for an app"
    public static let discussion = """
        Circle mode is how the studio gets pictures of an app: while it is on for an app key, the
        collectors on this database answer that app's agents' CONFIG with "snapshots":true, and
        the agents send a snapshot (a PNG and the view tree) of the page they show and of each
        page entered after. This turns it on for M minutes from now (a running collector
        notices within a second), or off with --minutes 0. Prints 'circle mode for app KEY on
        until TIME (M minutes)' with TIME in UTC, ISO 8601, or 'circle mode for app KEY off'.
        Snapshots can hold personal data on the screen: keep circle mode short.
        """
    static let db = Option.single(
        "db", "FILE|URI", help: "the collector's database: an SQLite file or a postgresql:// URI (an older file is migrated, as serve does)",
        required: true, missing: "circle needs --db FILE or --db postgresql://... (the collector's database)")
    static let app = Option.single(
        "app", "KEY", help: "the app key", required: true, missing: "circle needs --app KEY (the app key whose agents send snapshots)")
    static let minutes = Option.single(
        "minutes", "M", help: "how long from now, 1 to 1440 (a day); 0 turns it off", required: true,
        missing: "circle needs --minutes M: how long circle mode stays on (1 to 1440), or 0 to turn it off")
    public static let optionGroups = [OptionGroup([db, app, minutes])]
    public static let examples = """
        autotrack-agent demo --db shop.sqlite
        autotrack-collector circle --db shop.sqlite --app shop --minutes 30
        autotrack-collector circle --db shop.sqlite --app shop --minutes 0
          circle mode for app shop off
        """

    public var database: String
    public var appKey: String
    public var minutes: Int

    public init(arguments: inout Arguments) throws(UsageError) {
        guard let db = try arguments.value(Self.db), !db.isEmpty else { throw Self.db.missingError }
        database = db
        guard let app = try arguments.value(Self.app), !app.isEmpty else { throw Self.app.missingError }
        appKey = app
        guard let m = try arguments.int(Self.minutes, in: 0...1440) else { throw Self.minutes.missingError }
        minutes = m
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        let until = minutes == 0 ? nil : Posix.wallClockMillis() + Int64(minutes) * 60_000
        do throws(StoreError) {
            let store = try openStore(database, options: StoreOptions(access: .existing))
            defer { store.close() }
            guard let snapshots = store as? any SnapshotStore else {
                throw StoreError(.failed, "the store at \(store.location) keeps no snapshots")
            }
            try snapshots.setCircleMode(appKey: appKey, until: until)
        } catch {
            io.printError("autotrack-collector circle: \(error)")
            return .failure
        }
        guard let until else {
            io.print("circle mode for app \(appKey) off")
            return .success
        }
        let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(until) / 1000))
        io.print("circle mode for app \(appKey) on until \(time) (\(minutes) minute\(minutes == 1 ? "" : "s"))")
        return .success
    }
}
