import EventModel
/// A device and a user seen together in one stored event: the device is linked to the user (the
/// moment of sign-in).
public struct DeviceLink: Sendable, Hashable {
    public var appKey: String
    public var device: String
    public var user: String

    public init(appKey: String, device: String, user: String) {
        self.appKey = appKey
        self.device = device
        self.user = user
    }
}

/// Identity merge (docs/reports.md "Actors and identity merge"): the devices linked to exactly
/// one user, and that user. A device's linked users are every user that appears with it in a
/// stored event of its app key, whenever stored (the links a store keeps, `deviceLinks`): one user
/// merges the device's anonymous events into that user, before and after the link; a device
/// linked to several users (a shared device) keeps its anonymous events on the device actor.
public struct DeviceLinks: Sendable, Hashable {
    private struct Device: Hashable {
        var appKey: String
        var id: String
    }

    /// The merged devices, and their one user.
    private var users: [Device: String] = [:]
    /// Every link given, so that another store can be given the same (`pairs`).
    private var all: Set<DeviceLink> = []

    public static let none = DeviceLinks()

    public init() {}

    /// The merge that `links` make (repeated links count once).
    public init(_ links: some Sequence<DeviceLink>) {
        all = Set(links)
        users = Self.merged(all.lazy.map { (Device(appKey: $0.appKey, id: $0.device), $0.user) })
    }

    /// The rule of identity merge, over any spelling of devices and users (texts, a store's
    /// numbers): per device, its user when every link of it names one user; devices linked to
    /// several users are left out.
    public static func merged<D: Hashable, U: Hashable>(_ links: some Sequence<(D, U)>) -> [D: U] {
        var seen: [D: U?] = [:]
        for (d, u) in links {
            if let one = seen[d] {
                // A second, different user: a shared device.
                if one != u { seen[d] = .some(nil) }
            } else {
                seen[d] = .some(u)
            }
        }
        return seen.compactMapValues { $0 }
    }

    /// Every link, shared devices' included, in no order.
    public var pairs: [DeviceLink] { Array(all) }

    public var isEmpty: Bool { users.isEmpty }

    /// The merged devices (of `appKey` only, when given), each with its one user, in no order.
    public func merged(appKey: String? = nil) -> [DeviceLink] {
        users.compactMap { d, user in
            appKey == nil || appKey == d.appKey ? DeviceLink(appKey: d.appKey, device: d.id, user: user) : nil
        }
    }

    /// The one user of device `device` of `appKey`, nil when it has none or several.
    public func user(appKey: String, device: String) -> String? { users[Device(appKey: appKey, id: device)] }

    /// The person an event of `appKey` whose actor as sent is `sentID` (`ActorKind.user.sentID`)
    /// counts as: the one user of the device of that id when it is merged, else `sentID`.
    @inline(__always)
    public func actor(appKey: String, sentID: String?) -> String? {
        guard let sentID, !users.isEmpty else { return sentID }
        return users[Device(appKey: appKey, id: sentID)] ?? sentID
    }

    /// The person of an event with these fields: `actor(appKey:sentID:)` of `user ?? device`.
    public func actor(appKey: String, user: String?, device: String?) -> String? {
        actor(appKey: appKey, sentID: ActorKind.user.sentID(user: user, device: device, session: nil))
    }
}

extension ActivityRollup {
    /// Each burst's actor as the person (`links`): rollup tables keep click runs by the actor as sent.
    public mutating func mergeBurstActors(_ links: DeviceLinks) {
        for i in bursts.indices { bursts[i].actor = links.actor(appKey: bursts[i].appKey, sentID: bursts[i].actor) ?? bursts[i].actor }
    }
}

extension AnalyticsStore {
    /// The default `deviceLinks`: every stored event that carries both a user and a device, read
    /// through `events` (a store keeping a link table reads that instead), of the devices that
    /// sent an event without a user (only their links can change an answer: a device's events
    /// that all carry a user count as their users whatever it is linked to).
    public func scannedDeviceLinks(appKey: String?) throws(StoreError) -> DeviceLinks {
        var links = Set<DeviceLink>()
        var anonymous = Set<[String]>()
        try events(EventQuery(filter: EventFilter(appKey: appKey))) { e in
            guard let device = e.event.device else { return true }
            if let user = e.event.user {
                links.insert(DeviceLink(appKey: e.appKey, device: device, user: user))
            } else {
                anonymous.insert([e.appKey, device])
            }
            return true
        }
        return DeviceLinks(links.filter { anonymous.contains([$0.appKey, $0.device]) })
    }

    public func deviceLinks(appKey: String?) throws(StoreError) -> DeviceLinks { try scannedDeviceLinks(appKey: appKey) }
}
