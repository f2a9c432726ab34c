/// The stored events, streamed: what reports, analytics and `tail` read, and what the default
/// implementations of `ReportStore` and `AnalyticsStore` are written over. Part of
/// `CollectorStore`. Every method may block: call them from threads of your own.
///
/// Guarantees every implementation keeps (docs/schema.md):
/// - events stream in storage order (`seq`), one at a time (constant memory);
/// - event times in filters are the corrected times (`StoredEvent.time`).
public protocol EventSource: AnyObject, Sendable {
    /// Streams the stored events `query` selects, in storage order (`seq`), calling `each` for one
    /// event at a time (constant memory) until it returns false. `each` must not call the store.
    func events(_ query: EventQuery, _ each: (StoredEvent) -> Bool) throws(StoreError)
    /// The `seq` of the last stored event, nil when there is none (where `tail` starts).
    func lastSequence() throws(StoreError) -> Int64?
}

extension EventSource {
    /// The default `lastSequence`: the `seq` of the last event `events` streams (reads them all).
    public func lastStoredSequence() throws(StoreError) -> Int64? {
        var last: Int64?
        try events(EventQuery()) { e in
            last = e.seq
            return true
        }
        return last
    }

    public func lastSequence() throws(StoreError) -> Int64? { try lastStoredSequence() }
}
