import Analytics
import EventStore
import EventModel
import Foundation
import HTTPServer
import Synchronization

/// The studio's JSON API (docs/studio.md, "HTTP API"), once the request is authorized and a
/// write carries JSON. Every answer is JSON; failures are `StudioError`s.
final class StudioAPI: Sendable {
    let backend: any StudioBackend
    let clock: @Sendable () -> Int64
    /// Serializes read-change-publish of rule sets within this collector, so two edits at once
    /// never publish a set missing the other's change.
    let ruleEdits = Mutex<Void>(())

    /// How far back counts and heatmaps look when a request gives no `since`.
    static let defaultDays: Int64 = 30
    /// What a heatmap counts: the interactions a person makes on an element (taps, clicks, value
    /// changes), the view events a definition of an element selects; not page enters and leaves,
    /// impressions, scrolls or the agents' own records (`kvc_error`).
    static let heatmapEvents = ["ButtonClick", "ListItemClick", "ViewTap", "ValueChanged"]
    /// Pictures' nodes read for `selects`, by picture id; emptied when it holds `readTreesKept`.
    let readTrees = Mutex<[Int64: PictureNodes]>([:])
    static let readTreesKept = 16
    /// The longest circle mode one request turns on: a day.
    static let maxCircleMinutes: Int64 = 1440

    init(backend: any StudioBackend, clock: @escaping @Sendable () -> Int64) {
        self.backend = backend
        self.clock = clock
    }

    func respond(to request: HTTPRequest) -> Result<HTTPResponse, StudioError> {
        do throws(StudioError) {
            return .success(try route(request))
        } catch {
            return .failure(error)
        }
    }

    private func route(_ request: HTTPRequest) throws(StudioError) -> HTTPResponse {
        // Split before decoding, so an app key or rule id may hold an encoded `/`.
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        let method = request.method == .head ? HTTPMethod.get : request.method
        typealias Route = (method: HTTPMethod, pattern: [String], answer: ([String]) throws(StudioError) -> HTTPResponse)
        // `*` in a pattern takes any one segment; the taken segments are the answer's argument.
        let routes: [Route] = [
            (.get, ["apps"], { [self] _ throws(StudioError) in ok(try apps()) }),
            (.post, ["apps", "*", "circle"], { [self] k throws(StudioError) in ok(try circle(appKey: k[0], body: try object(request))) }),
            (.get, ["pages"], { [self] _ throws(StudioError) in ok(try pages(request)) }),
            (.put, ["pages", "*"], { [self] k throws(StudioError) in ok(try name(page: k[0], request)) }),
            (.get, ["snapshots"], { [self] _ throws(StudioError) in ok(try snapshots(request)) }),
            (.get, ["snapshots", "*"], { [self] k throws(StudioError) in ok(try snapshot(try snapshotID(k[0]))) }),
            (.get, ["snapshots", "*", "image"], { [self] k throws(StudioError) in .png(try stored(try snapshotID(k[0])).png) }),
            (.get, ["snapshots", "*", "heatmap"], { [self] k throws(StudioError) in ok(try heatmap(try snapshotID(k[0]), request)) }),
            (.get, ["snapshots", "*", "pick"], { [self] k throws(StudioError) in ok(try pick(try snapshotID(k[0]), request)) }),
            (.get, ["snapshots", "*", "scroll-depth"], { [self] k throws(StudioError) in
                let s = try stored(try snapshotID(k[0])).summary
                let depth = try backend.scrollDepth(
                    appKey: s.appKey, appVersion: request.queryValue("version"), page: s.page, range: try range(request))
                return ok(Self.json(depth))
            }),
            (.post, ["preview"], { [self] _ throws(StudioError) in ok(try preview(try object(request), range: try range(request))) }),
            (.get, ["rules"], { [self] _ throws(StudioError) in ok(try rules(request)) }),
            (.post, ["rules"], { [self] _ throws(StudioError) in ok(try create(try object(request)), status: .created) }),
            (.put, ["rules", "*"], { [self] k throws(StudioError) in
                ok(try replace(id: k[0], with: try object(request), app: request.queryValue("app")))
            }),
            (.delete, ["rules", "*"], { [self] k throws(StudioError) in ok(try delete(id: k[0], app: request.queryValue("app"))) }),
            (.get, ["rules", "*", "counts"], { [self] k throws(StudioError) in
                let (_, rule) = try find(id: k[0], app: request.queryValue("app"), in: try backend.ruleSets())
                return ok(Self.json(try backend.counts(rule: rule, range: try range(request))))
            }),
            (.post, ["insights", "*"], { [self] k throws(StudioError) in
                guard let kind = StudioInsight(rawValue: k[0]) else {
                    throw StudioError(.notFound, "no insight '\(k[0])'; there are \(StudioInsight.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                let body = try object(request)
                return ok(try backend.insight(kind, body: body, range: try range(body)))
            }),
            (.get, ["rules", "*", "health"], { [self] k throws(StudioError) in
                let (_, rule) = try find(id: k[0], app: request.queryValue("app"), in: try backend.ruleSets())
                return ok(Self.json(try backend.health(rule: rule)))
            }),
        ]
        var pathServed = false
        for route in routes where route.pattern.count == segments.count {
            guard zip(route.pattern, segments).allSatisfy({ $0 == "*" ? !$1.isEmpty : $0 == $1 }) else { continue }
            pathServed = true
            if route.method == method {
                return try route.answer(zip(route.pattern, segments).filter { $0.0 == "*" }.map(\.1))
            }
        }
        if pathServed {
            throw StudioError(.methodNotAllowed, "\(request.method) is not served on \(request.path) (docs/studio.md lists the API)")
        }
        throw StudioError(.notFound, "no API at \(request.path) (docs/studio.md lists the API)")
    }

    private func ok(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        .json(value.jsonText, status: status)
    }

    // MARK: Apps and pictures

    private func apps() throws(StudioError) -> JSONValue {
        let now = clock()
        return ["apps": .array(try backend.apps().map { app in
            var o = JSONObject()
            o["appKey"] = .string(app.appKey)
            o["versions"] = .array(app.versions.map(JSONValue.string))
            o["snapshots"] = .int(Int64(app.snapshots))
            o["circleModeUntil"] = app.circleModeUntil.flatMap { $0 > now ? JSONValue.int($0) : nil } ?? .null
            return .object(o)
        })]
    }

    private func circle(appKey: String, body: JSONValue) throws(StudioError) -> JSONValue {
        guard let minutes = body["minutes"]?.intValue, (0...Self.maxCircleMinutes).contains(minutes) else {
            throw StudioError(.badRequest, "give {\"minutes\": M} with M from 0 (off) to \(Self.maxCircleMinutes)")
        }
        let until = minutes == 0 ? nil : clock() + minutes * 60_000
        try backend.setCircleMode(appKey: appKey, until: until)
        return ["appKey": .string(appKey), "circleModeUntil": until.map(JSONValue.int) ?? .null]
    }

    private func snapshots(_ request: HTTPRequest) throws(StudioError) -> JSONValue {
        guard let app = request.queryValue("app"), !app.isEmpty else {
            throw StudioError(.badRequest, "say which app: /api/snapshots?app=KEY")
        }
        let list = try backend.snapshots(appKey: app, appVersion: request.queryValue("version"))
        return ["snapshots": .array(list.map { .object(Self.summary($0)) })]
    }

    /// `GET /api/pages?app=K`: each page once (studio.md §5), newest picture first: its display
    /// name (the name a person gave it, else the visible title of its newest picture's root, else
    /// the root itself), its versions and its pictures, newest first.
    private func pages(_ request: HTTPRequest) throws(StudioError) -> JSONValue {
        guard let app = request.queryValue("app"), !app.isEmpty else {
            throw StudioError(.badRequest, "say which app: /api/pages?app=KEY")
        }
        var order: [String] = []
        var pictures: [String: [StudioSnapshotSummary]] = [:]
        for s in try backend.snapshots(appKey: app, appVersion: nil) {
            if pictures[s.page] == nil { order.append(s.page) }
            pictures[s.page, default: []].append(s)
        }
        let names = try backend.pageNames(appKey: app)
        var pages: [JSONValue] = []
        for page in order {
            let list = pictures[page] ?? []
            var versions: [String] = []
            for p in list where !versions.contains(p.appVersion) { versions.append(p.appVersion) }
            var title = names[page]
            if title == nil, let newest = list.first, let picture = try backend.snapshot(id: newest.id) {
                title = (try? tree(of: picture))?["title"]?.stringValue
            }
            pages.append(.object(JSONObject([
                ("page", .string(page)), ("name", .string(title.flatMap { $0.isEmpty ? nil : $0 } ?? page)),
                ("versions", .array(versions.map(JSONValue.string))), ("snapshots", .array(list.map { .int($0.id) })),
            ])))
        }
        return ["pages": .array(pages)]
    }

    /// The longest page name taken, in UTF-8 bytes.
    static let maxPageNameBytes = 256

    /// `PUT /api/pages/{ROOT}?app=K` `{"name":N}`: names the page; an empty name (or null) takes
    /// the name away, so the page is shown by its title or root again.
    private func name(page: String, _ request: HTTPRequest) throws(StudioError) -> JSONValue {
        guard let app = request.queryValue("app"), !app.isEmpty else {
            throw StudioError(.badRequest, "say which app: PUT /api/pages/ROOT?app=KEY")
        }
        let body = try object(request)
        let name: String?
        switch body["name"] {
        case .null?: name = nil
        case .string(let text)?:
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.utf8.count <= Self.maxPageNameBytes else {
                throw StudioError(.badRequest, "a page name is at most \(Self.maxPageNameBytes) bytes; this one has \(trimmed.utf8.count)")
            }
            name = trimmed.isEmpty ? nil : trimmed
        default:
            throw StudioError(.badRequest, "give {\"name\": N}: the page's name, a string (\"\" takes the name away)")
        }
        try backend.setPageName(appKey: app, page: page, name: name)
        return ["page": .string(page), "name": name.map(JSONValue.string) ?? .null]
    }

    /// The picture and its tree, each node marked as pointing judges it (`ElementPick.marked`,
    /// with the stored interactions of the last 30 days).
    private func snapshot(_ id: Int64) throws(StudioError) -> JSONValue {
        let s = try stored(id)
        var o = Self.summary(s.summary)
        let tree = try tree(of: s)
        let (_, counts) = try interactions(s, tree: tree, version: nil, range: defaultRange())
        o["tree"] = ElementPick.marked(tree, interactions: counts)
        return .object(o)
    }

    /// `GET /api/snapshots/{S}/pick?x=X&y=Y`: the element pointing at (X, Y) means (picture
    /// pixels), its stored interactions of the last 30 days and the view event they are.
    private func pick(_ id: Int64, _ request: HTTPRequest) throws(StudioError) -> JSONValue {
        guard let x = request.queryValue("x").flatMap(Double.init), let y = request.queryValue("y").flatMap(Double.init),
            x.isFinite, y.isFinite
        else { throw StudioError(.badRequest, "give the point in the picture's pixels: ?x=X&y=Y") }
        let s = try stored(id)
        let tree = try tree(of: s)
        let (_, counts) = try interactions(s, tree: tree, version: nil, range: defaultRange())
        guard let node = ElementPick.pick(in: tree, x: x, y: y, interactions: counts), let path = node["path"]?.stringValue else {
            throw StudioError(.notFound, "(\(x), \(y)) is outside picture \(id) (\(s.summary.width)×\(s.summary.height))")
        }
        var o = JSONObject([("path", .string(path)), ("interactions", .int(Int64(counts[path] ?? 0)))])
        o["event"] = ElementPick.event(of: node, isRoot: node == tree).map(JSONValue.string) ?? .null
        return .object(o)
    }

    /// The tree's paths in tree order and the stored interactions on each (`heatmapEvents`).
    private func interactions(_ s: StudioSnapshot, tree: JSONValue, version: String?, range: StudioTimeRange) throws(StudioError)
        -> (paths: [String], counts: [String: Int])
    {
        var paths: [String] = []
        var seen = Set<String>()
        Self.walk(tree) { node in
            if let path = node["path"]?.stringValue, seen.insert(path).inserted { paths.append(path) }
        }
        let counts = try backend.heatmap(
            appKey: s.summary.appKey, appVersion: version, viewEvents: Self.heatmapEvents, paths: paths, range: range)
        return (paths, counts)
    }

    private func heatmap(_ id: Int64, _ request: HTTPRequest) throws(StudioError) -> JSONValue {
        let s = try stored(id)
        let (paths, counts) = try interactions(s, tree: try tree(of: s), version: request.queryValue("version"), range: try range(request))
        return ["elements": .array(paths.compactMap { path in
            guard let n = counts[path], n > 0 else { return nil }
            return ["path": .string(path), "count": .int(Int64(n))]
        })]
    }

    private func stored(_ id: Int64) throws(StudioError) -> StudioSnapshot {
        guard let s = try backend.snapshot(id: id) else { throw StudioError(.notFound, "no picture \(id); GET /api/snapshots?app=KEY lists them") }
        return s
    }

    private func tree(of snapshot: StudioSnapshot) throws(StudioError) -> JSONValue {
        guard let tree = try? JSONValue.parse(snapshot.tree), case .object = tree else {
            throw StudioError(.unavailable, "picture \(snapshot.summary.id)'s stored tree is not a JSON object")
        }
        return tree
    }

    /// The nodes of picture `snapshot`'s tree, read once per picture: a picture never changes
    /// under its id, and the definitions listed with a page ask for the same one again and again.
    private func nodes(of snapshot: StudioSnapshot) throws(StudioError) -> PictureNodes {
        let id = snapshot.summary.id
        if let known = readTrees.withLock({ $0[id] }) { return known }
        let nodes = PictureNodes(try tree(of: snapshot))
        readTrees.withLock { cache in
            if cache.count >= Self.readTreesKept { cache.removeAll() }
            cache[id] = nodes
        }
        return nodes
    }

    private func snapshotID(_ text: String) throws(StudioError) -> Int64 {
        guard let id = Int64(text), id > 0 else { throw StudioError(.notFound, "'\(text)' is not a picture id (a whole number)") }
        return id
    }

    static func summary(_ s: StudioSnapshotSummary) -> JSONObject {
        JSONObject([
            ("id", .int(s.id)), ("appKey", .string(s.appKey)), ("appVersion", .string(s.appVersion)), ("page", .string(s.page)),
            ("capturedAt", .int(s.capturedAt)), ("width", .int(Int64(s.width))), ("height", .int(Int64(s.height))),
            ("receivedAt", .int(s.receivedAt)), ("device", s.device.map(JSONValue.string) ?? .null),
        ])
    }

    /// Calls `each` for every node, depth first, parents first; bounded for hostile trees.
    static func walk(_ tree: JSONValue, _ each: (JSONValue) -> Void) {
        var stack = [tree]
        var visited = 0
        while let node = stack.popLast(), visited < 1_000_000 {
            visited += 1
            each(node)
            if let children = node["children"]?.arrayValue { stack.append(contentsOf: children.reversed()) }
        }
    }

    // MARK: Counting

    private func preview(_ body: JSONValue, range: StudioTimeRange) throws(StudioError) -> JSONValue {
        var draft = body
        // A preview needs no id yet: the page asks before the definition has a name.
        if case .object(var o) = draft, o["id"] == nil || o["id"] == "" {
            o["id"] = "preview"
            draft = .object(o)
        }
        let rule = try backend.checkRule(draft)
        let counts = try backend.counts(rule: rule, range: range)
        var answer = Self.json(counts).objectValue ?? JSONObject()
        answer["selects"] = .array(try selects(rule).map(JSONValue.string))
        return .object(answer)
    }

    /// The paths `rule` selects in the newest picture of its app and page (none without one).
    private func selects(_ rule: JSONValue) throws(StudioError) -> [String] {
        guard let selection = PictureSelection(rule: rule), let page = selection.page, let app = rule["appKey"]?.stringValue,
            let newest = try backend.snapshots(appKey: app, appVersion: nil).first(where: { $0.page == page })
        else { return [] }
        if let known = readTrees.withLock({ $0[newest.id] }) { return selection.paths(in: known) }
        guard let picture = try backend.snapshot(id: newest.id) else { return [] }
        return selection.paths(in: try nodes(of: picture))
    }

    static func json(_ health: RuleHealth) -> JSONValue {
        [
            "versions": .array(
                health.versions.map { v in
                    [
                        "appVersion": .string(v.appVersion), "count": .int(Int64(v.count)), "inPicture": .bool(v.inPicture),
                        "status": .string(v.status), "suggestion": v.suggestion.map(JSONValue.string) ?? .null,
                        "snapshot": v.snapshot.map(JSONValue.int) ?? .null,
                    ]
                })
        ]
    }

    static func json(_ counts: RuleCounts) -> JSONValue {
        [
            "total": .int(Int64(counts.total)),
            "days": .array(counts.days.map { ["day": .string($0.day.description), "count": .int(Int64($0.count))] }),
            "values": .array(counts.values.map { ["value": $0.value, "count": .int(Int64($0.count))] }),
        ]
    }

    /// `{"visits":N,"scrolled":M,"reached":[{"share":0.25,"visits":k},…]}`.
    static func json(_ depth: ScrollDepth) -> JSONValue {
        [
            "visits": .int(Int64(depth.visits)), "scrolled": .int(Int64(depth.scrolled)),
            "reached": .array(depth.reached.map { ["share": .double($0.share), "visits": .int(Int64($0.visits))] }),
        ]
    }

    /// `since`/`until` from the query: ms since the epoch or `YYYY-MM-DD` (midnight UTC); `until`
    /// is exclusive. Without `since`, the last 30 days (from midnight UTC 29 days ago).
    private func range(_ request: HTTPRequest) throws(StudioError) -> StudioTimeRange {
        func instant(_ name: String) throws(StudioError) -> Int64? {
            guard let text = request.queryValue(name) else { return nil }
            guard let t = TimeArgument.instant(text) else {
                throw StudioError(.badRequest, "\(name)=\(text) is not a time: give ms since the epoch or YYYY-MM-DD")
            }
            return t
        }
        let until = try instant("until")
        let since = try instant("since") ?? defaultSince()
        if let until, until <= since { throw StudioError(.badRequest, "until must be after since (it is exclusive)") }
        return StudioTimeRange(since: since, until: until)
    }

    /// `since`/`until` of an insight's body, as `range(_:)` reads them from a query (a number
    /// of ms or a `YYYY-MM-DD` string); `"since": null` is the whole history.
    private func range(_ body: JSONValue) throws(StudioError) -> StudioTimeRange {
        func instant(_ name: String) throws(StudioError) -> Int64? {
            switch body[name] {
            case nil, .null?: return nil
            case .int(let t)?: return t
            case .string(let text)?:
                guard let t = TimeArgument.instant(text) else {
                    throw StudioError(.badRequest, "\(name) '\(text)' is not a time: give ms since the epoch or YYYY-MM-DD")
                }
                return t
            case let other?: throw StudioError(.badRequest, "\(name) is \(other.jsonText): give ms since the epoch or YYYY-MM-DD")
            }
        }
        let until = try instant("until")
        let since = body["since"] == .null ? nil : try instant("since") ?? defaultSince()
        if let until, let since, until <= since { throw StudioError(.badRequest, "until must be after since (it is exclusive)") }
        return StudioTimeRange(since: since, until: until)
    }

    /// The last 30 days: from midnight UTC 29 days ago, open-ended.
    private func defaultRange() -> StudioTimeRange { StudioTimeRange(since: defaultSince()) }

    private func defaultSince() -> Int64 { UTCDay(time: clock()).startTime - (Self.defaultDays - 1) * UTCDay.milliseconds }

    // MARK: Rules

    private func rules(_ request: HTTPRequest) throws(StudioError) -> JSONValue {
        guard let app = request.queryValue("app"), !app.isEmpty else { throw StudioError(.badRequest, "say which app: /api/rules?app=KEY") }
        let set = try backend.ruleSets().first { $0.appKey == app }
        return ["etag": set.map { .string($0.etag) } ?? .null, "rules": .array(set?.rules ?? [])]
    }

    private func create(_ body: JSONValue) throws(StudioError) -> JSONValue {
        let rule = try backend.checkRule(body)
        let (id, app) = try Self.keys(rule)
        return try ruleEdits.withLock { _ throws(StudioError) -> JSONValue in
            let sets = try backend.ruleSets()
            if let owner = sets.first(where: { $0.rules.contains { $0["id"]?.stringValue == id } }) {
                throw StudioError(
                    .conflict, "the id '\(id)' is in use (app \(owner.appKey)); choose another, or PUT /api/rules/\(id) to change that rule")
            }
            let etag = try backend.replaceRules(appKey: app, with: (sets.first { $0.appKey == app }?.rules ?? []) + [rule])
            return ["rule": rule, "etag": .string(etag)]
        }
    }

    private func replace(id: String, with body: JSONValue, app: String?) throws(StudioError) -> JSONValue {
        guard case .object(var o) = body else { throw StudioError(.badRequest, "send the rule as a JSON object") }
        if o["id"] == nil { o["id"] = .string(id) }
        guard o["id"]?.stringValue == id else {
            throw StudioError(.badRequest, "the body's id differs from /api/rules/\(id): an id never changes; delete the rule and create another")
        }
        let rule = try backend.checkRule(.object(o))
        return try ruleEdits.withLock { _ throws(StudioError) -> JSONValue in
            let (set, _) = try find(id: id, app: app, in: try backend.ruleSets())
            guard rule["appKey"]?.stringValue == set.appKey else {
                throw StudioError(.badRequest, "rule \(id) belongs to app \(set.appKey); to move it, delete it and create it in the other app")
            }
            let rules = set.rules.map { $0["id"]?.stringValue == id ? rule : $0 }
            return ["etag": .string(try backend.replaceRules(appKey: set.appKey, with: rules))]
        }
    }

    private func delete(id: String, app: String?) throws(StudioError) -> JSONValue {
        try ruleEdits.withLock { _ throws(StudioError) -> JSONValue in
            let (set, _) = try find(id: id, app: app, in: try backend.ruleSets())
            let rules = set.rules.filter { $0["id"]?.stringValue != id }
            return ["etag": .string(try backend.replaceRules(appKey: set.appKey, with: rules))]
        }
    }

    /// The set holding rule `id` (only `app`'s when given) and the rule.
    private func find(id: String, app: String?, in sets: [StudioRuleSet]) throws(StudioError) -> (StudioRuleSet, JSONValue) {
        let found = sets.filter { app == nil || $0.appKey == app }.compactMap { set in
            set.rules.first { $0["id"]?.stringValue == id }.map { (set, $0) }
        }
        guard let first = found.first else { throw StudioError(.notFound, "no rule '\(id)'; GET /api/rules?app=KEY lists them") }
        guard found.count == 1 else {
            let apps = found.map(\.0.appKey).joined(separator: ", ")
            throw StudioError(.conflict, "rule id '\(id)' is used by apps \(apps); add ?app=KEY to say which")
        }
        return first
    }

    static func keys(_ rule: JSONValue) throws(StudioError) -> (id: String, appKey: String) {
        guard let id = rule["id"]?.stringValue, let app = rule["appKey"]?.stringValue else {
            throw StudioError(.badRequest, "a rule needs \"id\" and \"appKey\"")
        }
        return (id, app)
    }

    /// The body as a JSON object.
    private func object(_ request: HTTPRequest) throws(StudioError) -> JSONValue {
        guard let value = try? JSONValue.parse(request.body), case .object = value else {
            throw StudioError(.badRequest, "send a JSON object")
        }
        return value
    }
}
