public import EventModel
public import EventStore

// The event rows both stores read from `events`, decoded by column name: one spelling of which
// column holds what.

extension StoredEvent {
    /// The columns `init(row:)` reads.
    public static let columns = """
        seq, app_key, app_version, id, ts, type, name, page, path, view_id, session, user_id, device_id, duration,
        props, corrected_ts, received_at
        """

    /// The event of a row of `columns` (props that do not parse read as none; an unknown type as
    /// `custom`). Columns are read in their order, which a store's lookup by name may rely on.
    @inlinable
    public init(row r: some SQLRow) throws(SQLDecodingError) {
        let seq: Int64 = try r.decode("seq"), appKey: String = try r.decode("app_key"), appVersion: String? = try r.decode("app_version")
        let id: String = try r.decode("id"), ts: Int64 = try r.decode("ts"), type: String = try r.decode("type")
        let name: String = try r.decode("name"), page: String? = try r.decode("page"), path: String? = try r.decode("path")
        let viewId: String? = try r.decode("view_id"), session: String? = try r.decode("session")
        let user: String? = try r.decode("user_id"), device: String? = try r.decode("device_id")
        let duration: Int64? = try r.decode("duration"), props: String? = try r.decode("props")
        let event = TrackEvent(
            id: id, ts: ts, type: EventType(rawValue: type) ?? .custom, name: name, page: page, path: path, viewId: viewId,
            session: session, user: user, device: device, duration: duration,
            props: props.flatMap { try? JSONValue.parse($0) }?.objectValue ?? JSONObject())
        self.init(
            seq: seq, appKey: appKey, appVersion: appVersion, event: event, time: try r.decode("corrected_ts"),
            receivedAt: try r.decode("received_at"))
    }
}

extension ScannedEvent {
    /// The columns `init(row:)` reads: twelve, no props.
    public static let columns = "seq, app_key, app_version, corrected_ts, type, name, page, path, session, user_id, device_id, duration"

    /// The event of a row of `columns`.
    @inlinable
    public init(row r: some SQLRow) throws(SQLDecodingError) {
        self.init(
            seq: try r.decode("seq"), appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"),
            time: try r.decode("corrected_ts"), type: try r.decode("type"), name: try r.decode("name"), page: try r.decode("page"),
            path: try r.decode("path"), session: try r.decode("session"), user: try r.decode("user_id"), device: try r.decode("device_id"),
            duration: try r.decode("duration"))
    }
}
