import EventModel
import EventStore

/// The lines a rollup rebuild (`CollectorStore.rebuildRollups`) is reported with: one when an
/// app starts, one per further tenth of its events, so a million events print about ten lines.
struct RollupProgressLines {
    private var shown: (appKey: String, tenths: Int)?

    mutating func line(_ p: RollupProgress) -> String? {
        let tenths = p.total == 0 ? 10 : min(10, p.replayed * 10 / p.total)
        if let shown, shown.appKey == p.appKey, tenths <= shown.tenths { return nil }
        shown = (p.appKey, tenths)
        return "rebuilding the report rollups of app \(LogText.escaped(p.appKey)): \(p.replayed) of \(p.total) events"
    }
}
