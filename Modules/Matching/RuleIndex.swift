import KVCConfig
import ViewIdentity

/// The KVC rules arranged so that an interaction meets only the rules that could match it.
///
/// Level 1 is a hash of (view event, element count, name sequence) in an open-addressing table:
/// one probe finds the bucket of rules whose pattern has exactly the path's names. Inside a bucket the rules are split by
/// app key, then, where a bucket is large, by the index at its most selective position (exact
/// index, `s:*` section, `*`) or by `content`, recursively. Every candidate is still verified in
/// full, so the splits only prune; results are sorted back into plan order.
struct RuleIndex: Sendable {
    /// One position of a pattern that is not `*`, to verify.
    struct IndexCheck: Sendable {
        let position: Int
        let pattern: PathPattern.IndexPattern
    }

    /// What verifying a rule needs, by plan position (build time only).
    struct Compiled: Sendable {
        /// nil when the range holds for every version.
        let versions: VersionRange?
        let content: String?
        let checks: [IndexCheck]
    }

    /// One rule of a leaf, with its checks as a range of the leaf's check array.
    struct Candidate: Sendable {
        let order: Int32
        let checkStart: Int32
        let checkEnd: Int32
        let content: String?
        /// nil when the range holds for every version.
        let versions: VersionRange?
    }

    /// The rules left after every split, stored together so that verifying them touches two
    /// contiguous arrays instead of one allocation per rule.
    struct Leaf: Sendable {
        /// Ascending plan order.
        let candidates: [Candidate]
        let checks: [IndexCheck]

        init(_ members: [Int32], _ compiled: [Compiled]) {
            var candidates: [Candidate] = []
            var checks: [IndexCheck] = []
            candidates.reserveCapacity(members.count)
            for m in members {
                let c = compiled[Int(m)]
                let start = Int32(checks.count)
                checks += c.checks
                candidates.append(
                    Candidate(order: m, checkStart: start, checkEnd: Int32(checks.count), content: c.content, versions: c.versions))
            }
            self.candidates = candidates
            self.checks = checks
        }
    }

    /// A set of candidate rules, split where that prunes.
    indirect enum Node: Sendable {
        case leaf(Leaf)
        /// By the index at `position`: exact value, `s:*` section, or `*`.
        case index(position: Int, exact: [PathIndex: Node], section: [Int: Node], any: Node?)
        /// By `content`: rules naming a title, and rules without content.
        case content(byTitle: [String: Node], any: Node?)
    }

    /// The rules of one app inside a bucket.
    struct AppNode: Sendable {
        let appID: Int32
        let node: Node
    }

    /// Rules with one view event and one name sequence.
    struct Bucket: Sendable {
        let viewEvent: ViewEvent
        let names: [String]
        let apps: [AppNode]
    }

    /// Buckets at most this large stay a plain list.
    static let leafLimit = 8

    private let buckets: [Bucket]
    /// Open addressing, linear probing, load ≤ 1/2: a probe reads one contiguous slot array, where a
    /// Dictionary reads its bitmap, keys and values apart. An empty slot has bucket -1.
    private let slots: [Slot]
    private let slotMask: Int

    private struct Slot: Sendable {
        var hash: Int
        var bucket: Int32
    }
    private let appIDs: [String: Int32]

    /// Indexes `rules`, keeping only those for which `include` holds (their plan positions stay).
    init(rules: [KVCRule], include: (KVCRule) -> Bool) {
        var appIDs: [String: Int32] = [:]
        var compiled: [Compiled] = []
        compiled.reserveCapacity(rules.count)
        // (event, names) → (app → members), in first-seen order so the build is deterministic.
        var bucketOf: [BucketKey: Int] = [:]
        var groups: [(key: BucketKey, apps: [(appID: Int32, members: [Int32])])] = []
        for (position, rule) in rules.enumerated() {
            let appID: Int32
            if let id = appIDs[rule.appKey] {
                appID = id
            } else {
                appID = Int32(appIDs.count)
                appIDs[rule.appKey] = appID
            }
            var checks: [IndexCheck] = []
            for (i, p) in rule.viewPath.indexes.enumerated() where p != .any {
                checks.append(IndexCheck(position: i, pattern: p))
            }
            compiled.append(
                Compiled(
                    versions: rule.appVersion.comparators.isEmpty ? nil : rule.appVersion, content: rule.content,
                    checks: checks))
            guard include(rule) else { continue }
            let key = BucketKey(viewEvent: rule.viewEvent, names: rule.viewPath.names)
            let g: Int
            if let existing = bucketOf[key] {
                g = existing
            } else {
                g = groups.count
                bucketOf[key] = g
                groups.append((key, []))
            }
            if let a = groups[g].apps.firstIndex(where: { $0.appID == appID }) {
                groups[g].apps[a].members.append(Int32(position))
            } else {
                groups[g].apps.append((appID, [Int32(position)]))
            }
        }
        var buckets: [Bucket] = []
        buckets.reserveCapacity(groups.count)
        for group in groups {
            var used = [Bool](repeating: false, count: group.key.names.count)
            var apps: [AppNode] = []
            for app in group.apps {
                let node = RuleIndex.build(app.members, rules: rules, compiled: compiled, used: &used, contentDone: false)
                apps.append(AppNode(appID: app.appID, node: node))
            }
            buckets.append(Bucket(viewEvent: group.key.viewEvent, names: group.key.names, apps: apps))
        }
        self.buckets = buckets
        var capacity = 16
        while capacity < 2 * buckets.count { capacity *= 2 }
        var slots = [Slot](repeating: Slot(hash: 0, bucket: -1), count: capacity)
        for (id, bucket) in buckets.enumerated() {
            let h = RuleIndex.hash(bucket.viewEvent, names: bucket.names)
            var i = h & (capacity - 1)
            while slots[i].bucket >= 0 { i = (i + 1) & (capacity - 1) }
            slots[i] = Slot(hash: h, bucket: Int32(id))
        }
        self.slots = slots
        slotMask = capacity - 1
        self.appIDs = appIDs
    }

    /// Names by their UTF-8 bytes: `String`'s own `==` would merge canonically equivalent spellings
    /// into one bucket, which byte comparison at query time would then miss.
    private struct BucketKey: Hashable {
        let viewEvent: ViewEvent
        let names: [String]

        static func == (a: BucketKey, b: BucketKey) -> Bool {
            a.viewEvent == b.viewEvent && a.names.count == b.names.count
                && zip(a.names, b.names).allSatisfy { sameBytes($0, $1) }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(viewEvent)
            for n in names { hasher.combine(Array(n.utf8)) }
        }
    }

    private enum Split {
        case position(Int)
        case content
    }

    /// Splits `members` on the position (or the content) that leaves the fewest expected candidates,
    /// recursively; positions already split on (`used`) and content once split are not split again.
    private static func build(
        _ members: [Int32], rules: [KVCRule], compiled: [Compiled], used: inout [Bool], contentDone: Bool
    ) -> Node {
        guard members.count > leafLimit else { return .leaf(Leaf(members, compiled)) }
        let n = Double(members.count)
        // A split must cut the expected candidates by a quarter to be worth a level.
        var bestCost = n * 0.75
        var best: Split?
        for p in used.indices where !used[p] {
            var exact: [PathIndex: Int] = [:]
            var section: [Int: Int] = [:]
            var any = 0
            for m in members {
                switch rules[Int(m)].viewPath.indexes[p] {
                case .any: any += 1
                case .exact(let i): exact[i, default: 0] += 1
                case .anyRow(let s): section[s, default: 0] += 1
                }
            }
            // Expected candidates for a query drawn like the rules: every `*` rule, plus its own group.
            let cost = Double(any) + squares(exact.values) / n + squares(section.values) / n
            if cost < bestCost {
                bestCost = cost
                best = .position(p)
            }
        }
        if !contentDone {
            var byTitle: [String: Int] = [:]
            var untitled = 0
            for m in members {
                if let c = rules[Int(m)].content { byTitle[c, default: 0] += 1 } else { untitled += 1 }
            }
            if Double(untitled) + squares(byTitle.values) / n < bestCost { best = .content }
        }
        switch best {
        case nil:
            return .leaf(Leaf(members, compiled))
        case .content:
            var groups: [String: [Int32]] = [:]
            var rest: [Int32] = []
            for m in members {
                if let c = rules[Int(m)].content { groups[c, default: []].append(m) } else { rest.append(m) }
            }
            var byTitle: [String: Node] = [:]
            for (title, g) in groups { byTitle[title] = build(g, rules: rules, compiled: compiled, used: &used, contentDone: true) }
            let any = rest.isEmpty ? nil : build(rest, rules: rules, compiled: compiled, used: &used, contentDone: true)
            return .content(byTitle: byTitle, any: any)
        case .position(let p):
            var exactGroups: [PathIndex: [Int32]] = [:]
            var sectionGroups: [Int: [Int32]] = [:]
            var rest: [Int32] = []
            for m in members {
                switch rules[Int(m)].viewPath.indexes[p] {
                case .any: rest.append(m)
                case .exact(let i): exactGroups[i, default: []].append(m)
                case .anyRow(let s): sectionGroups[s, default: []].append(m)
                }
            }
            used[p] = true
            defer { used[p] = false }
            var exact: [PathIndex: Node] = [:]
            for (k, g) in exactGroups { exact[k] = build(g, rules: rules, compiled: compiled, used: &used, contentDone: contentDone) }
            var section: [Int: Node] = [:]
            for (k, g) in sectionGroups { section[k] = build(g, rules: rules, compiled: compiled, used: &used, contentDone: contentDone) }
            let any = rest.isEmpty ? nil : build(rest, rules: rules, compiled: compiled, used: &used, contentDone: contentDone)
            return .index(position: p, exact: exact, section: section, any: any)
        }
    }

    private static func squares(_ counts: some Sequence<Int>) -> Double {
        var s = 0.0
        for c in counts { s += Double(c) * Double(c) }
        return s
    }

    /// The level-1 hash: view event, element count, then every name, each closed by 0xFF (never a
    /// UTF-8 byte) so `A-BC` and `AB-C` differ. Names are hashed by their UTF-8 bytes with FNV-1a,
    /// a few cycles per byte against String hashing's normalising tens (flooding is no concern:
    /// names and rules both come from the app). Bytes, not Unicode equivalence, because names are
    /// compared by bytes everywhere (`PathPattern.matches`, the viewId's MD5).
    static func hash(_ viewEvent: ViewEvent, names: [String]) -> Int {
        var h = seed(viewEvent, names.count)
        for name in names { mix(&h, name) }
        return Int(truncatingIfNeeded: h)
    }

    /// The same hash, read straight from a path so that a query allocates nothing.
    static func hash(_ viewEvent: ViewEvent, elements: [ViewPath.Element]) -> Int {
        var h = seed(viewEvent, elements.count)
        for e in elements { mix(&h, e.name) }
        return Int(truncatingIfNeeded: h)
    }

    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    @inline(__always)
    private static func seed(_ viewEvent: ViewEvent, _ count: Int) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        h = (h ^ UInt64(viewEvent.slot)) &* prime
        return (h ^ UInt64(truncatingIfNeeded: count)) &* prime
    }

    @inline(__always)
    private static func mix(_ h: inout UInt64, _ name: String) {
        var x = h
        let contiguous: Void? = name.utf8.withContiguousStorageIfAvailable { bytes in
            for b in bytes { x = (x ^ UInt64(b)) &* prime }
        }
        if contiguous == nil {
            for b in name.utf8 { x = (x ^ UInt64(b)) &* prime }
        }
        h = (x ^ 0xFF) &* prime
    }

    /// Appends the plan positions of every indexed rule that matches, ascending.
    ///
    /// `appKey` nil: every app key; `appVersion` nil: every version.
    func matches(
        viewEvent: ViewEvent, elements: [ViewPath.Element], title: String?, appKey: String?, appVersion: AppVersion?,
        into out: inout [Int32]
    ) {
        guard let b = bucket(viewEvent, elements) else { return }
        let start = out.count
        let apps = buckets[b].apps
        let query = Query(elements: elements, title: title, version: appVersion)
        if let appKey {
            guard let id = appIDs[appKey], let app = apps.first(where: { $0.appID == id }) else { return }
            collect(app.node, query, into: &out)
        } else {
            for app in apps { collect(app.node, query, into: &out) }
        }
        if out.count - start > 1 { out[start...].sort() }
    }

    /// The bucket of exactly these names for this event, if any rule has them.
    @inline(__always)
    private func bucket(_ viewEvent: ViewEvent, _ elements: [ViewPath.Element]) -> Int? {
        let h = RuleIndex.hash(viewEvent, elements: elements)
        var i = h & slotMask
        while true {
            let slot = slots[i]
            if slot.bucket < 0 { return nil }
            if slot.hash == h {
                let b = Int(slot.bucket)
                if buckets[b].viewEvent == viewEvent, RuleIndex.sameNames(buckets[b].names, elements) { return b }
            }
            i = (i + 1) & slotMask
        }
    }

    /// How many candidates a query would verify: what the index saves, for tests.
    func candidateCount(viewEvent: ViewEvent, elements: [ViewPath.Element], title: String?) -> Int {
        guard let b = bucket(viewEvent, elements) else { return 0 }
        func count(_ node: Node) -> Int {
            switch node {
            case .leaf(let leaf): return leaf.candidates.count
            case .index(let p, let exact, let section, let any):
                let index = elements[p].index
                var n = exact[index].map(count) ?? 0
                if case .cell(let ip) = index { n += section[ip.section].map(count) ?? 0 }
                return n + (any.map(count) ?? 0)
            case .content(let byTitle, let any):
                return (title.flatMap { byTitle[$0] }.map(count) ?? 0) + (any.map(count) ?? 0)
            }
        }
        return buckets[b].apps.reduce(0) { $0 + count($1.node) }
    }

    private struct Query {
        let elements: [ViewPath.Element]
        let title: String?
        let version: AppVersion?
    }

    private static func sameNames(_ names: [String], _ elements: [ViewPath.Element]) -> Bool {
        guard names.count == elements.count else { return false }
        for i in 0..<names.count where !sameBytes(names[i], elements[i].name) { return false }
        return true
    }

    private func collect(_ node: Node, _ q: Query, into out: inout [Int32]) {
        switch node {
        case .leaf(let leaf):
            // Through pointers, so no candidate is copied (a copy retains its content and version range).
            leaf.checks.withUnsafeBufferPointer { checks in
                leaf.candidates.withUnsafeBufferPointer { candidates in
                    for i in candidates.indices where RuleIndex.holds(candidates.baseAddress! + i, checks, q) {
                        out.append(candidates[i].order)
                    }
                }
            }
        case .index(let p, let exact, let section, let any):
            let index = q.elements[p].index
            if let n = exact[index] { collect(n, q, into: &out) }
            if case .cell(let ip) = index, let n = section[ip.section] { collect(n, q, into: &out) }
            if let any { collect(any, q, into: &out) }
        case .content(let byTitle, let any):
            if let title = q.title, let n = byTitle[title] { collect(n, q, into: &out) }
            if let any { collect(any, q, into: &out) }
        }
    }

    /// The full check of one candidate whose names already match.
    @inline(__always)
    private static func holds(_ r: UnsafePointer<Candidate>, _ checks: UnsafeBufferPointer<IndexCheck>, _ q: Query) -> Bool {
        if let c = r.pointee.content, c != q.title { return false }
        for i in Int(r.pointee.checkStart)..<Int(r.pointee.checkEnd) {
            if !checks[i].pattern.matches(q.elements[checks[i].position].index) { return false }
        }
        if let v = q.version, let range = r.pointee.versions, !range.contains(v) { return false }
        return true
    }
}
