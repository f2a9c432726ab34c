import EventModel
import EventStore
import Foundation
import HTTPServer
import PNGImage
import Studio
import Synchronization
import SystemCalls

/// A studio over the fake back end: a shop's home page with three product rows, clicks on them,
/// and a clock the tests move.
struct StudioFixture {
    static let token = "admin-secret"
    /// 2026-11-20T12:00:00Z.
    static let now: Int64 = 1_763_640_000_000
    static let day: Int64 = 86_400_000
    static let rowPath = "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:"
    static let buttonPath = "HomeViewController-UIView-UITableView-ProductCell-UIButton&0-0-0-0:%d-0"

    let backend: FakeStudioBackend
    let clock: TestClock
    let handler: StudioHandler

    /// The home page's tree: rows 0…2, each a cell with a label and a button (frames in pixels).
    static func tree() -> JSONValue {
        func node(_ type: String, _ path: String, _ frame: [Int64], title: String? = nil, props: JSONValue? = nil, _ children: [JSONValue] = [])
            -> JSONValue
        {
            var o = JSONObject()
            o["type"] = .string(type)
            o["path"] = .string(path)
            o["viewId"] = .string("id-" + path)
            o["frame"] = .array(frame.map(JSONValue.int))
            if let title { o["title"] = .string(title) }
            if let props { o["props"] = props }
            if !children.isEmpty { o["children"] = .array(children) }
            return .object(o)
        }
        let names = ["Gift card", "Tea", "Mug"]
        var rows: [JSONValue] = []
        for r in 0..<3 {
            let top = Int64(40 + 60 * r)
            let props: JSONValue = ["product.id": .string("p\(r)"), "product.price": .int(Int64(10 + r))]
            let label = node("UILabel", "HomeViewController-UIView-UITableView-ProductCell-UILabel&0-0-0-0:\(r)-0", [10, top + 5, 200, 20], title: names[r])
            let button = node("UIButton", buttonPath.replacingOccurrences(of: "%d", with: "\(r)"), [300, top + 5, 80, 30], title: "Add")
            rows.append(node("Shop.ProductCell", "\(rowPath)\(r)", [0, top, 400, 60], title: names[r], props: props, [label, button]))
        }
        return node(
            "Shop.HomeViewController", "HomeViewController&0", [0, 0, 400, 300],
            [node("UIView", "HomeViewController-UIView&0-0", [0, 0, 400, 300], [node("UITableView", "HomeViewController-UIView-UITableView&0-0-0", [0, 40, 400, 180], rows)])])
    }

    /// The tree's picture: each node's frame drawn as a box with its title.
    static let png: [UInt8] = picture(of: tree(), width: 400, height: 300)

    /// A picture of `tree`: each node's frame a box (buttons blue), the titles of leaves written in.
    static func picture(of tree: JSONValue, width: Int, height: Int) -> [UInt8] {
        var image = RGBImage(width: width, height: height, background: RGBColor(red: 250, green: 250, blue: 250))
        func draw(_ node: JSONValue, depth: Int) {
            if let f = node["frame"]?.arrayValue?.compactMap(\.intValue), f.count == 4 {
                let button = node["type"]?.stringValue.map { $0 == "UIButton" || $0 == "GtkButton" } ?? false
                let shade = UInt8(240 - min(depth, 15) * 12)
                image.fill(x: Int(f[0]), y: Int(f[1]), width: Int(f[2]), height: Int(f[3]),
                    button ? RGBColor(red: 52, green: 120, blue: 246) : RGBColor(red: shade, green: shade, blue: 250))
                image.stroke(x: Int(f[0]), y: Int(f[1]), width: Int(f[2]), height: Int(f[3]), RGBColor(red: 150, green: 150, blue: 160))
                if let title = node["title"]?.stringValue, node["children"] == nil, title.allSatisfy(\.isASCII) {
                    image.draw(text: title, x: Int(f[0]) + 4, y: Int(f[1]) + 6, scale: 2, button ? .white : .black)
                }
            }
            for c in node["children"]?.arrayValue ?? [] { draw(c, depth: depth + 1) }
        }
        draw(tree, depth: 0)
        return image.png
    }

    /// The studio at `now` (ms since the epoch): the clicks are days before it.
    init(now: Int64 = Self.now) {
        var state = FakeStudioBackend.State()
        state.apps = [StudioApp(appKey: "shop", versions: ["1.0.0", "1.1.0"], snapshots: 2, circleModeUntil: nil)]
        let home = StudioSnapshotSummary(id: 7, appKey: "shop", appVersion: "1.1.0", page: "HomeViewController", capturedAt: now - 1000, width: 400, height: 300, receivedAt: now - 900)
        var older = home
        older.id = 3
        older.appVersion = "1.0.0"
        older.capturedAt = now - 10 * Self.day
        state.snapshots = [
            StudioSnapshot(summary: older, png: Self.png, tree: #"{"type":"Old","path":"HomeViewController&0"}"#),
            StudioSnapshot(summary: home, png: Self.png, tree: Self.tree().jsonText),
        ]
        // Clicks on the rows over the last days: row 0 three times, row 1 once, one long ago.
        func click(_ row: Int, _ daysAgo: Int64, event: String = "ListItemClick", title: String? = nil) -> FakeStudioBackend.Interaction {
            FakeStudioBackend.Interaction(
                appKey: "shop", appVersion: "1.1.0", viewEvent: event, path: "\(Self.rowPath)\(row)", title: title ?? ["Gift card", "Tea", "Mug"][row],
                time: now - daysAgo * Self.day)
        }
        // Beside them, what is no interaction: row 0's kvc_error (a rule's key missed) and the page's enters.
        var miss = click(0, 1, event: "kvc_error")
        miss.title = nil
        let enter = FakeStudioBackend.Interaction(
            appKey: "shop", appVersion: "1.1.0", viewEvent: "PageEnter", path: "HomeViewController&0", title: nil, time: now - Self.day)
        state.interactions = [click(0, 1), click(0, 2), click(0, 2), click(1, 3), click(2, 100), miss, enter, enter]
        backend = FakeStudioBackend(state)
        let clock = TestClock(now)
        self.clock = clock
        handler = StudioHandler(
            backend: backend,
            configuration: StudioHandler.Configuration(isAdminToken: { $0 == Self.token }, clock: { clock.now }, sessionLifetime: 3_600_000))
    }

    /// A request as the server would hand it over; `token` as a bearer token, JSON `body` as a
    /// write's content.
    func send(
        _ method: HTTPMethod, _ target: String, token: String? = Self.token, cookie: String? = nil, json body: JSONValue? = nil,
        contentType: String? = nil, raw: String? = nil, from peer: String = "127.0.0.1", headers extra: [(String, String)] = []
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in extra { headers.set(name, value) }
        if let token { headers.set("Authorization", "Bearer \(token)") }
        if let cookie { headers.set("Cookie", cookie) }
        var bytes: [UInt8] = []
        if let body {
            headers.set("Content-Type", contentType ?? "application/json")
            bytes = Array(body.jsonText.utf8)
        } else if let raw {
            if let contentType { headers.set("Content-Type", contentType) }
            bytes = Array(raw.utf8)
        } else if let contentType {
            headers.set("Content-Type", contentType)
        }
        var request = HTTPRequest(method: method, target: target, headers: headers, body: bytes)
        request.peer.host = peer
        return handler.respond(to: request)
    }
}

extension HTTPResponse {
    var json: JSONValue? { try? JSONValue.parse(body) }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// The studio's clock in tests: ms since the epoch, moved by the test.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 { value.withLock { $0 } }
    func advance(_ milliseconds: Int64) { value.withLock { $0 += milliseconds } }
}

extension JSONValue {
    /// An array's element, nil past its end or on a non-array.
    subscript(_ index: Int) -> JSONValue? {
        guard let a = arrayValue, index >= 0, index < a.count else { return nil }
        return a[index]
    }
}
