public import EventModel

/// Seeded, shop-like sessions as wire events (docs/wire.md §3), for report pictures, browser
/// tests and the analytics benchmark: users (a fifth anonymous, known by device only) open
/// the app on some days and walk Home → List → Detail → Cart with clicks, leaves with dwell
/// times and now and then a burst of rage clicks. The same seed gives the same events.
public struct ShopTraffic {
    public static let pages = ["HomeViewController", "ProductListViewController", "ProductDetailViewController", "CartViewController"]
    public var users: Int
    public var days: Int
    /// How many users are signed in (users 0..<signedIn carry a `user`, the rest only their
    /// device); nil: all but every fifth.
    public var signedIn: Int?
    /// Buttons per page, each its own click path (4 pages × this many paths).
    public var buttonsPerPage: Int
    /// The first day's midnight, ms since the epoch (default 2026-11-01T00:00:00Z).
    public var start: Int64
    private var random: SeededGenerator
    private var sessionNumber = 0

    public init(
        users: Int = 200, days: Int = 14, start: Int64 = 1_793_491_200_000, seed: UInt64 = 42, signedIn: Int? = nil,
        buttonsPerPage: Int = 1
    ) {
        self.users = users
        self.days = days
        self.signedIn = signedIn
        self.buttonsPerPage = max(1, buttonsPerPage)
        self.start = start
        self.random = SeededGenerator(seed: seed)
    }

    /// The realistic ingest mix the ingest benchmarks send (docs/performance.md, "Ingest"):
    /// 7 days of sessions from 2,000 devices, 400 of them signed in, with page enter/leave and
    /// dwell, clicks over 60 paths (15 buttons on each of the 4 pages) and some rage bursts.
    public static func ingestMix(seed: UInt64) -> ShopTraffic {
        ShopTraffic(users: 2_000, days: 7, seed: seed, signedIn: 400, buttonsPerPage: 15)
    }

    /// Calls `each` with batches of about `batchSize` events until `total` events were given.
    public mutating func batches(total: Int, batchSize: Int = 500, _ each: ([JSONValue]) throws -> Void) rethrows {
        var given = 0
        var batch: [JSONValue] = []
        while given < total {
            for e in session() where given < total {
                batch.append(e)
                given += 1
                if batch.count >= batchSize {
                    try each(batch)
                    batch = []
                }
            }
        }
        if !batch.isEmpty { try each(batch) }
    }

    /// `total` events in batches of `batchSize`, dealt round-robin to `senders` lists (one per
    /// connection of a benchmark).
    public mutating func dealt(total: Int, batchSize: Int, senders: Int) -> [[[JSONValue]]] {
        var lists = [[[JSONValue]]](repeating: [], count: senders)
        var n = 0
        batches(total: total, batchSize: batchSize) { batch in
            lists[n % senders].append(batch)
            n += 1
        }
        return lists
    }

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    /// One session of one user on one day: 4 to 40 events.
    mutating func session() -> [JSONValue] {
        sessionNumber += 1
        let u = int(0...(users - 1))
        // Earlier days have more sessions and users come back less often later: a retention curve.
        let day = min(int(0...(days - 1)), int(0...(days - 1)))
        let anonymous = signedIn.map { u >= $0 } ?? (u % 5 == 4)
        let user: String? = anonymous ? nil : "user-\(u)"
        let device = "device-\(u)"
        let session = "s-\(sessionNumber)"
        var t = start + Int64(day) * 86_400_000 + Int64(int(6 * 3_600...22 * 3_600)) * 1000
        var out: [JSONValue] = []
        func add(
            _ type: EventType, _ name: String, page: String? = nil, path: String? = nil, duration: Int64? = nil,
            gap: ClosedRange<Int> = 300...20_000
        ) {
            let e = TrackEvent(
                id: "\(session)-\(out.count)", ts: t, type: type, name: name, page: page, path: path, session: session, user: user,
                device: device, duration: duration, props: type == .click ? JSONObject([("title", .string(name))]) : JSONObject())
            out.append(e.json)
            t += Int64(int(gap))
        }
        add(.appStart, "launch")
        var depth = 0
        while depth < Self.pages.count {
            let page = Self.pages[depth]
            add(.pageEnter, page, page: page)
            let clicks = int(0...3)
            for _ in 0..<clicks {
                // One button (the default) draws nothing more, so older seeds give the same events.
                let button = buttonsPerPage > 1 ? int(0...(buttonsPerPage - 1)) : 0
                add(.click, "\(page)#tap", page: page, path: "\(page)-UIView-UIButton&0-\(button)-\(depth)")
            }
            if int(0...30) == 0 {
                // A rage burst on the page's button: quick clicks 100 to 600 ms apart.
                for _ in 0..<int(3...6) {
                    add(.click, "\(page)#tap", page: page, path: "\(page)-UIView-UIButton&0-0-\(depth)", gap: 100...600)
                }
            }
            let dwell = Int64(int(500...(depth + 1) * 15_000))
            t += dwell
            add(.pageLeave, page, page: page, duration: dwell)
            // Fewer go deeper: the funnel narrows.
            if int(0...9) < 4 { break }
            depth += 1
        }
        if depth == Self.pages.count { add(.click, "PAY", page: "CartViewController", path: "CartViewController-UIView-UIButton&0-0-9") }
        return out
    }
}
