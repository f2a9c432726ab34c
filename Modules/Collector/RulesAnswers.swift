import ATLPWire
import EventStore
import Synchronization

/// `CONFIG` answers by app key and version, made once per stored rule set (its etag) and kept
/// encoded: a repeated `CONFIG` costs a read of the set and a lookup, no selection, hashing or
/// encoding (a client pipelining `CONFIG` cannot make the collector encode 200 rules each time).
/// Bounded: emptied when it reaches `maxEntries` (app keys and versions are the clients' choice).
final class RulesAnswers: Sendable {
    struct Key: Hashable {
        var appKey: String
        var appVersion: String?
    }

    struct Answer {
        /// The stored set's etag it was made from (nil: nothing published for the app).
        var setEtag: String?
        /// The etag of this selection (the one `RULES` carries).
        var etag: String
        /// `RULES` with the rules, encoded.
        var rules: ATLPReply
        /// The same with `"snapshots":true`, for an app in circle mode (the flag is not in the etag).
        var rulesAskingForSnapshots: ATLPReply

        /// `RULES` with the rules, with `"snapshots":true` when `snapshots`.
        func rules(snapshots: Bool) -> ATLPReply { snapshots ? rulesAskingForSnapshots : rules }
    }

    static let maxEntries = 4096
    private let cache = Mutex<[Key: Answer]>([:])

    init() {}

    /// The answer for `key` from `set`, made by `select` when none is cached for this set.
    func answer(_ key: Key, set: StoredRuleSet?, select: () -> RuleSelection) -> Answer {
        if let hit = cache.withLock({ $0[key] }), hit.setEtag == set?.etag { return hit }
        let selection = select()
        func rules(snapshots: Bool) -> ATLPReply {
            .encoding(.rules(etag: selection.etag, rules: selection.rules, sampleRate: selection.sampleRate, snapshots: snapshots))
        }
        let answer = Answer(
            setEtag: set?.etag, etag: selection.etag, rules: rules(snapshots: false),
            rulesAskingForSnapshots: rules(snapshots: true))
        cache.withLock { cache in
            if cache.count >= Self.maxEntries { cache.removeAll() }
            cache[key] = answer
        }
        return answer
    }
}
