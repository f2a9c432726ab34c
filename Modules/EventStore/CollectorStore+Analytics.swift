import EventModel
/// What the analytics (module `Analytics`) need from a store: one streamed scan. Every funnel,
/// retention table and report figure is computed from it in Swift, once for every store, so
/// SQLite and PostgreSQL give the same answers by construction.
///
/// A store may implement `scan` with a narrow query of its own (no props, only the kinds asked
/// for, through an index); the default below reads `events(_:_:)` and must give the same rows.
extension AnalyticsStore {
    /// Streams the stored events `query` selects, in storage order (`seq`), one at a time
    /// (constant memory), until `each` returns false. `each` must not call the store.
    public func scanningEvents(_ query: EventScanQuery, _ each: (ScannedEvent) -> Bool) throws(StoreError) {
        var types: [String] = []
        for k in query.kinds where !types.contains(k.type) { types.append(k.type) }
        try events(EventQuery(filter: query.filter, types: types)) { stored in
            guard query.keeps(type: stored.event.type.rawValue, name: stored.event.name) else { return true }
            return each(ScannedEvent(stored))
        }
    }

    /// The default `scan`: `scanningEvents`.
    public func scan(_ query: EventScanQuery, _ each: (ScannedEvent) -> Bool) throws(StoreError) {
        try scanningEvents(query, each)
    }
}
