import EventModel
import EventStore

// The event rows both stores read from `events`, decoded by column name: one spelling of which
// column holds what.

extension StoredEvent {
    /// The columns `init(row:)` reads.
    public static let columns = """
        seq, app_key, app_version, id, ts, type, name, page, path, view_id, session, user_id, device_id, duration,
        props, corrected_ts, received_at
        """

    /// The event of a row of `columns` (props that do not parse read as none; an unknown type as
    /// `custom`).
    public init(row r: some SQLRow) throws(SQLDecodingError) {
        let props = (try r.decode("props", as: String?.self)).flatMap { try? JSONValue.parse($0) }?.objectValue ?? JSONObject()
        let event = TrackEvent(
            id: try r.decode("id"), ts: try r.decode("ts"), type: EventType(rawValue: try r.decode("type")) ?? .custom,
            name: try r.decode("name"), page: try r.decode("page"), path: try r.decode("path"), viewId: try r.decode("view_id"),
            session: try r.decode("session"), user: try r.decode("user_id"), device: try r.decode("device_id"),
            duration: try r.decode("duration"), props: props)
        self.init(
            seq: try r.decode("seq"), appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"), event: event,
            time: try r.decode("corrected_ts"), receivedAt: try r.decode("received_at"))
    }
}

extension ScannedEvent {
    /// The columns `init(row:)` reads: twelve, no props.
    public static let columns = "seq, app_key, app_version, corrected_ts, type, name, page, path, session, user_id, device_id, duration"

    /// The event of a row of `columns`.
    public init(row r: some SQLRow) throws(SQLDecodingError) {
        self.init(
            seq: try r.decode("seq"), appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"),
            time: try r.decode("corrected_ts"), type: try r.decode("type"), name: try r.decode("name"), page: try r.decode("page"),
            path: try r.decode("path"), session: try r.decode("session"), user: try r.decode("user_id"), device: try r.decode("device_id"),
            duration: try r.decode("duration"))
    }
}
