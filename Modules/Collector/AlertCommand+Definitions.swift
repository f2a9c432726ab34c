import CommandSupport
import EventModel
import EventStore
import SystemCalls

extension AlertCommand {
    /// The rest of `alert --definitions`'s options (`--db` and the flag are read); the kvc
    /// errors' threshold and window are 0, unused.
    init(definitionsWith arguments: inout Arguments, database: String) throws(UsageError) {
        self.database = database
        definitions = true
        threshold = 0
        withinText = ""
        withinMilliseconds = 0
        for other in [Self.kvcErrors, Self.within, Self.version] where arguments.contains(other) {
            throw UsageError("--\(other.name) belongs to the kvc errors' check, not --definitions; run alert once for each check")
        }
        filter = EventFilter(appKey: try arguments.value(Self.app))
        let format = try arguments.value(defaulted: Self.format)
        guard format == "text" || format == "json" else { throw UsageError("--format '\(format)' is not one of text, json") }
        json = format == "json"
        (exec, execTimeout) = try Self.execOptions(&arguments)
        try arguments.finish()
    }

    /// `alert --definitions`: prints the definitions broken in their app's newest version;
    /// exits 1 when there is one (after CMD took the document), 0 when none, 3 when the store fails.
    func runDefinitions(io: any OutputStreams) -> ExitCode {
        let now = Posix.wallClockMillis()
        guard let alert = readStore(database, command: "autotrack-collector alert", io: io, { store throws(StoreError) in
            guard let pictures = store as? any SnapshotStore else {
                throw StoreError(.failed, "the store at \(store.location) keeps no snapshots")
            }
            return try DefinitionsAlert(store: store, pictures: pictures, filter: filter, now: now)
        }) else { return Self.notDelivered }
        let document = alert.json.jsonText + "\n"
        if json { io.out(document) } else { for line in alert.lines { io.print(line) } }
        guard !alert.broken.isEmpty else { return .success }
        return deliver(document, io: io)
    }
}
