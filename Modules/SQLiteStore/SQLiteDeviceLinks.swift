public import EventStore
import StoreSQL

/// Identity merge's table (`device_links`, schema migration 7, docs/schema.md): one row per app
/// key, device and user seen together in a stored event, added in the transaction that stores
/// the event. Links are kept when events are pruned (a person stays one person) and whatever the
/// rollups' state, so every way of answering (rollups or events) reads the same links.
enum DeviceLinkTable {
    /// Migration 7: the table, filled from the events stored before it.
    static let migration = """
        CREATE TABLE IF NOT EXISTS device_links (
            app_key     TEXT    NOT NULL,
            device      TEXT    NOT NULL,
            user_id     TEXT    NOT NULL,
            PRIMARY KEY (app_key, device, user_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO device_links (app_key, device, user_id)
            SELECT DISTINCT app_key, device_id, user_id FROM events WHERE user_id IS NOT NULL AND device_id IS NOT NULL;
        """

    /// Migration 9: the devices that sent an event without a user (`anonymous_devices`): only
    /// their links can change an answer, so only their links are read (a store with thousands of
    /// signed-in devices reads none of theirs).
    static let anonymousMigration = """
        CREATE TABLE IF NOT EXISTS anonymous_devices (
            app_key     TEXT    NOT NULL,
            device      TEXT    NOT NULL,
            PRIMARY KEY (app_key, device)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO anonymous_devices (app_key, device)
            SELECT DISTINCT app_key, device_id FROM events WHERE user_id IS NULL AND device_id IS NOT NULL;
        """

    /// Adds the links `pairs` (of the valid events of one batch of app `appKey`; a pair without a
    /// user: a device that sent an event without one) inside the caller's transaction that stores
    /// them: one statement per distinct pair; an event refused as a duplicate brings a pair already
    /// recorded, so taking every valid event's is exact.
    static func record(_ pairs: [DeviceUser], appKey: String, in db: SQLiteDatabase) throws(SQLiteError) {
        for p in pairs {
            if let user = p.user {
                try add(DeviceLink(appKey: appKey, device: p.device, user: user), in: db)
            } else {
                try db.run(addAnonymous, rows: [[.text(appKey), .text(p.device)]])
            }
        }
    }

    /// Adds one link (nothing when it is there).
    static func add(_ link: DeviceLink, in db: SQLiteDatabase) throws(SQLiteError) {
        try db.run(addLink, rows: [[.text(link.appKey), .text(link.device), .text(link.user)]])
    }

    // Run for every distinct pair of every batch stored: prepared once, no text rendered per run.
    private static let addLink = HotStatement("INSERT INTO device_links (app_key, device, user_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
    private static let addAnonymous = HotStatement("INSERT INTO anonymous_devices (app_key, device) VALUES (?, ?) ON CONFLICT DO NOTHING")
}

/// A device and the user carried with it by one event (nil: an event without a user).
struct DeviceUser: Hashable, Sendable {
    var device: String
    var user: String?
}

extension RollupEvent {
    /// The actor as sent (`ActorKind.user.sentID`): what the rollup tables key actors by;
    /// identity merge is applied when they are read.
    var sentActor: String? { ActorKind.user.sentID(user: user, device: device, session: session) }
}

extension SQLiteEventStore {
    /// The links of `device_links` whose device sent an event without a user (`anonymous_devices`).
    public func deviceLinks(appKey: String?) throws(StoreError) -> DeviceLinks {
        let anonymous = SQLQuery.where(appKey.map { ["a.app_key = \($0)"] } ?? [])
        return DeviceLinks(
            try read(
                """
                SELECT l.app_key, l.device, l.user_id FROM anonymous_devices AS a
                JOIN device_links AS l ON l.app_key = a.app_key AND l.device = a.device\(anonymous)
                """
            ) { r throws(SQLDecodingError) in
                DeviceLink(appKey: try r.decode("app_key"), device: try r.decode("device"), user: try r.decode("user_id"))
            })
    }

    /// Adds `links` to `device_links` (another store's, for a copy of some of its events that
    /// must merge as it does: `report --rule`'s scratch database).
    public func addDeviceLinks(_ links: [DeviceLink]) throws(StoreError) {
        try locked { db throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                for l in links { try DeviceLinkTable.add(l, in: db) }
            }
        }
    }

    /// Identity merge in figures read from the rollup tables (`activityRollup`), which key actors
    /// as sent: each day's distinct actors are counted again from `rollup_actors`' `a` rows,
    /// numbered with merged devices as their users (`ActorNumbers`: bytes, no String per row),
    /// and each burst's actor is the person.
    func mergeDeviceLinks(into rollup: inout ActivityRollup, _ f: RollupFilter) throws(StoreError) {
        let links = try deviceLinks(appKey: f.appKey)
        if links.isEmpty { return }
        rollup.mergeBurstActors(links)
        let ids = SQLQuery.where(f.conditions(day: "day") + ["kind = 'a'"])
        let people = try locked { db throws(SQLiteError) -> [Int64: Set<Int>] in
            var numbers = ActorNumbers(merging: links)
            var people: [Int64: Set<Int>] = [:]
            let none = UnsafeRawBufferPointer(start: nil, count: 0)
            try db.stream("SELECT day, app_key, id FROM rollup_actors\(ids)") { s throws(SQLDecodingError) in
                let person = numbers.number(appKey: s.bytes(try s.column("app_key")) ?? none, id: s.bytes(try s.column("id")) ?? none)
                people[s.int64(try s.column("day")), default: []].insert(person)
                return true
            }
            return people
        }
        for (i, d) in rollup.days.enumerated() { rollup.days[i].actors = people[d.day.number]?.count ?? 0 }
    }

    /// For `actorEventsFromRollups`: per stored id number (`rollup_ids`) of a merged device, the
    /// stored number of its user (−1 for any other number), from one join of `device_links` with
    /// `rollup_ids` (of `appKey` only, when given).
    func mergedIDNumbers(appKey: String?, in db: SQLiteDatabase) throws(SQLiteError) -> [Int32] {
        // A device's number is of one app: its users' texts tell them apart; their numbers by device.
        // CROSS JOIN fixes the order: the anonymous devices (few), then their links by primary key,
        // then the links' numbers. Left to itself the planner walked every link (most are of
        // signed-in devices) and probed the anonymous devices: 3 times as long at 16,000 links.
        var links: [(Int64, String)] = []
        var userNumbers: [Int64: [String: Int64]] = [:]
        try db.stream(
            """
            SELECT d.number AS device, l.user_id, u.number AS user FROM anonymous_devices AS a
            CROSS JOIN device_links AS l ON l.app_key = a.app_key AND l.device = a.device
            CROSS JOIN rollup_ids AS d ON d.app_key = l.app_key AND d.id = l.device
            LEFT JOIN rollup_ids AS u ON u.app_key = l.app_key AND u.id = l.user_id\(SQLQuery.where(appKey.map { ["a.app_key = \($0)"] } ?? []))
            """
        ) { r throws(SQLDecodingError) in
            let device: Int64 = try r.decode("device"), user: String = try r.decode("user_id")
            links.append((device, user))
            if let n = try r.decode("user", as: Int64?.self) { userNumbers[device, default: [:]][user] = n }
            return true
        }
        var map: [Int32] = []
        for (device, user) in DeviceLinks.merged(links) {
            guard let u = userNumbers[device]?[user] else { continue }
            if Int(device) >= map.count { map += [Int32](repeating: -1, count: Int(device) + 1 - map.count) }
            map[Int(device)] = Int32(u)
        }
        return map
    }
}
