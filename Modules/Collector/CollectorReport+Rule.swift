import Definitions
import EventModel
public import EventStore
import Foundation
public import KVCConfig
import SQLiteStore

extension CollectorReport {
    /// The report restricted to the events `rule` selects (Definitions' `RuleEvents`) among those
    /// `filter` selects, whenever they were stored (`report --rule`): every section means what it
    /// means in the whole report, over those events only (docs/reports.md "The report of one
    /// rule"). Rejected events, duplicates and batches belong to no rule: they are 0 and empty.
    ///
    /// The selected events are copied, with their corrected times and app versions, into a
    /// scratch SQLite database in the temporary directory (removed before returning), with the
    /// rule published there, and the report is computed from it: one implementation of every
    /// figure, on either store.
    public init(store: any CollectorStore, rule: KVCRule, filter: EventFilter = .all) throws(StoreError) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("autotrack-rule-report-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.failed, "cannot create a scratch directory in \(directory.deletingLastPathComponent().path) for the report of rule \(rule.id); check TMPDIR is writable")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let scratch = try SQLiteEventStore(path: directory.appendingPathComponent("rule.sqlite").path, options: StoreOptions(durability: .normal))
        defer { scratch.close() }
        var scope = filter
        if scope.appKey == nil { scope.appKey = rule.appKey }
        var matcher = RuleEventMatcher(rule)
        // Consecutive events of one app version go in one batch; the corrected time becomes `ts`
        // (no `sentAt`), so the scratch database's corrected times are the store's.
        var batch: [JSONValue] = []
        var batchVersion: String?
        var failure: StoreError?
        func flush() {
            guard !batch.isEmpty, failure == nil else { return }
            do throws(StoreError) {
                _ = try scratch.append(EventBatch(appKey: rule.appKey, appVersion: batchVersion, events: batch))
            } catch {
                failure = error
            }
            batch.removeAll(keepingCapacity: true)
        }
        if scope.appKey == rule.appKey {
            try store.events(EventQuery(filter: scope, types: [matcher.events.type])) { stored in
                guard matcher.selects(stored) else { return true }
                if stored.appVersion != batchVersion || batch.count >= 1_000 { flush() }
                batchVersion = stored.appVersion
                var copy = stored.event
                copy.ts = stored.time
                batch.append(copy.json)
                return failure == nil
            }
            flush()
            if let failure { throw failure }
        }
        // The store's links, so that the copied events merge as they do there (identity merge).
        try scratch.addDeviceLinks(try store.deviceLinks(appKey: rule.appKey).pairs)
        _ = try scratch.publish([StoredRule(rule)], sampleRate: 1)
        self = try CollectorReport(store: scratch, filter: scope)
        database = store.location
        totals.rejected = 0
        totals.duplicates = 0
        totals.batches = 0
        self.scope = rule
    }
}
