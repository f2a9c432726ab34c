import Analytics
import EventModel
import EventStore
import Foundation
import HTTPServer
import Studio
import Synchronization

/// A studio over the fake back end shaped like the GTK shop of `./Tools/demo.sh --studio`: a
/// home page whose list rows hold a frame with the product's name, a price, ♡/♥ and Share; a
/// product page; a cart page that is one box. Clicks, kvc_errors and page enters stored over the
/// last days, and the shop's own rule reading each row's product name (`child.label`).
struct ShopStudio {
    static let token = "shop-admin"
    static let day: Int64 = 86_400_000
    static let row = "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow&0-0-0-0-0:"
    static let products = ["Kettle", "Teapot", "Mug"]
    static let detailShare = "GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkButton&0-0-0-0-1"
    static let detailAdd = "GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkButton&0-0-0-0-2"
    static let openProductRule: JSONValue = [
        "id": "home-open-product", "name": "Open product from list", "appKey": "shop", "appVersion": "*",
        "viewEvent": "ListItemClick", "viewPath": .string(row + "*"), "keyPath": "child.label", "keyName": "productName",
    ]

    let backend: FakeStudioBackend
    let handler: StudioHandler
    let now: Int64

    /// The path of row `r`'s part: `rowPath(0)` the row, `rowPath(0, "-GtkFrame-GtkBox-GtkButton", "-0-0-1")` its Share.
    static func rowPath(_ r: Int, _ names: String = "", _ indexes: String = "") -> String {
        let amp = row.firstIndex(of: "&")!
        return String(row[..<amp]) + names + String(row[amp...]) + "\(r)" + indexes
    }

    static func node(
        _ type: String, _ path: String, _ frame: [Int64], title: String? = nil, id: String? = nil, props: [(String, JSONValue)] = [],
        _ children: [JSONValue] = []
    ) -> JSONValue {
        var o = JSONObject()
        o["type"] = .string(type)
        if let id { o["id"] = .string(id) }
        if let title { o["title"] = .string(title) }
        o["path"] = .string(path)
        o["viewId"] = .string("v-" + path)
        o["frame"] = .array(frame.map(JSONValue.int))
        // A widget's many toolkit properties, as GTK's snapshots list them.
        var p = JSONObject(props)
        for k in ["can-focus", "can-target", "focus-on-click", "focusable", "has-default", "has-focus", "has-tooltip", "hexpand",
            "hexpand-set", "receives-default", "sensitive", "vexpand", "vexpand-set", "visible"]
        {
            p[k] = .bool(k != "has-focus")
        }
        for (i, k) in ["accessible-role", "halign", "height-request", "margin-bottom", "margin-end", "margin-start", "margin-top",
            "overflow", "scale-factor", "valign", "width-request"].enumerated()
        {
            p[k] = .int(Int64(i))
        }
        p["css-name"] = .string(type.lowercased())
        p["name"] = .string(id ?? type)
        o["props"] = .object(p)
        if !children.isEmpty { o["children"] = .array(children) }
        return .object(o)
    }

    static func labelled(_ type: String, _ path: String, _ frame: [Int64], _ text: String, id: String? = nil) -> JSONValue {
        let label = node("GtkLabel", path.replacingOccurrences(of: "&", with: "-GtkLabel&") + "-0", frame, title: text, props: [("label", .string(text))])
        return node(type, path, frame, title: text, id: id, props: [("label", .string(text))], [label])
    }

    /// Home: rows 0…2 of 80 px, each a frame named after its product; row 0 shows ♥.
    static func homeTree() -> JSONValue {
        var rows: [JSONValue] = []
        for r in 0..<3 {
            let top = Int64(50 + 80 * r)
            let name = products[r]
            let frameLabel = node("GtkLabel", rowPath(r, "-GtkFrame-GtkLabel", "-0-0"), [10, top + 2, 200, 20], title: name, props: [("label", .string(name))])
            let price = node("GtkLabel", rowPath(r, "-GtkFrame-GtkBox-GtkLabel", "-0-0-0"), [20, top + 30, 80, 30], title: "€\(12 + r)", id: "price",
                props: [("label", .string("€\(12 + r)"))])
            let fav = labelled("GtkButton", rowPath(r, "-GtkFrame-GtkBox-GtkButton", "-0-0-0"), [300, top + 30, 60, 36], r == 0 ? "♥" : "♡", id: "fav")
            let share = labelled("GtkButton", rowPath(r, "-GtkFrame-GtkBox-GtkButton", "-0-0-1"), [380, top + 30, 80, 36], "Share", id: "share")
            let line = node("GtkBox", rowPath(r, "-GtkFrame-GtkBox", "-0-0"), [10, top + 26, 460, 44], [price, fav, share])
            let frame = node("GtkFrame", rowPath(r, "-GtkFrame", "-0"), [4, top + 2, 472, 74], title: name, id: "product",
                props: [("label", .string(name)), ("label-xalign", .double(0))], [frameLabel, line])
            rows.append(node("GtkListBoxRow", rowPath(r), [0, top, 480, 80], props: [("activatable", true), ("selectable", true)], [frame]))
        }
        let list = node("GtkListBox", "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox&0-0-0-0", [0, 50, 480, 240], rows)
        let viewport = node("GtkViewport", "GtkBox(home)-GtkScrolledWindow-GtkViewport&0-0-0", [0, 50, 480, 240], [list])
        let scrolled = node("GtkScrolledWindow", "GtkBox(home)-GtkScrolledWindow&0-0", [0, 50, 480, 240], [viewport])
        let cart = node("GtkLabel", "GtkBox(home)-GtkLabel&0-0", [10, 10, 200, 30], title: "Cart: empty", id: "cart", props: [("label", "Cart: empty")])
        return node("GtkBox", "GtkBox(home)&0", [0, 0, 480, 300], id: "home", [cart, scrolled])
    }

    /// The product page of the Kettle: Back, the frame with its name, price and the actions.
    static func detailTree() -> JSONValue {
        let back = labelled("GtkButton", "GtkBox(detail)-GtkButton&0-0", [10, 10, 80, 30], "Back", id: "back")
        let frameLabel = node("GtkLabel", "GtkBox(detail)-GtkFrame-GtkLabel&0-0-0", [10, 50, 200, 20], title: "Kettle", props: [("label", "Kettle")])
        let price = node("GtkLabel", "GtkBox(detail)-GtkFrame-GtkBox-GtkLabel&0-0-0-0", [20, 80, 100, 30], title: "€12", id: "price", props: [("label", "€12")])
        let fav = labelled("GtkButton", "GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkButton&0-0-0-0-0", [20, 200, 130, 40], "♡ Favourite", id: "fav")
        let share = labelled("GtkButton", detailShare, [170, 200, 100, 40], "Share", id: "share")
        let add = labelled("GtkButton", detailAdd, [290, 200, 160, 40], "Add to cart", id: "addToCart")
        let actions = node("GtkBox", "GtkBox(detail)-GtkFrame-GtkBox-GtkBox&0-0-0-0", [20, 200, 440, 40], [fav, share, add])
        let body = node("GtkBox", "GtkBox(detail)-GtkFrame-GtkBox&0-0-0", [10, 76, 460, 180], [price, actions])
        let frame = node("GtkFrame", "GtkBox(detail)-GtkFrame&0-0", [4, 48, 472, 212], title: "Kettle", id: "product",
            props: [("label", "Kettle")], [frameLabel, body])
        return node("GtkBox", "GtkBox(detail)&0", [0, 0, 480, 300], id: "detail", [back, frame])
    }

    /// The cart: one box, the whole picture.
    static func cartTree() -> JSONValue {
        node("GtkBox", "GtkBox(cart)&0", [0, 0, 480, 300], id: "cart", props: [("label", "Your cart is empty")])
    }

    static func png(_ tree: JSONValue) -> [UInt8] { StudioFixture.picture(of: tree, width: 480, height: 300) }

    /// Pictures taken a minute ago; the stored events over the last days before `now`.
    init(now: Int64) {
        self.now = now
        var state = FakeStudioBackend.State()
        state.apps = [StudioApp(appKey: "shop", versions: ["1.2.0"], snapshots: 3, circleModeUntil: nil)]
        func summary(_ id: Int64, _ page: String) -> StudioSnapshotSummary {
            StudioSnapshotSummary(id: id, appKey: "shop", appVersion: "1.2.0", page: page, capturedAt: now - 60_000 - id, width: 480, height: 300,
                receivedAt: now - 60_000 - id, device: "d-0123456789abcdef0123456789abcdef")
        }
        state.snapshots = [
            StudioSnapshot(summary: summary(11, "GtkBox(home)"), png: Self.png(Self.homeTree()), tree: Self.homeTree().jsonText),
            StudioSnapshot(summary: summary(12, "GtkBox(detail)"), png: Self.png(Self.detailTree()), tree: Self.detailTree().jsonText),
            StudioSnapshot(summary: summary(13, "GtkBox(cart)"), png: Self.png(Self.cartTree()), tree: Self.cartTree().jsonText),
        ]
        func event(_ kind: String, _ path: String, daysAgo: Int64, title: String? = nil, values: [String: String] = [:])
            -> FakeStudioBackend.Interaction
        {
            FakeStudioBackend.Interaction(
                appKey: "shop", appVersion: "1.2.0", viewEvent: kind, path: path, title: title, time: now - daysAgo * Self.day - 3_600_000,
                values: values)
        }
        var events: [FakeStudioBackend.Interaction] = []
        // Rows: the Kettle opened 3 times, the Teapot twice; a row click has no title, the shop's rule collects the name.
        for d in [1, 2, 4] as [Int64] { events.append(event("ListItemClick", Self.rowPath(0), daysAgo: d, values: ["productName": "Kettle"])) }
        for d in [1, 3] as [Int64] { events.append(event("ListItemClick", Self.rowPath(1), daysAgo: d, values: ["productName": "Teapot"])) }
        // The Kettle's ♡ tapped twice while it showed ♡ (the picture, taken after, shows ♥).
        for d in [1, 2] as [Int64] { events.append(event("ButtonClick", Self.rowPath(0, "-GtkFrame-GtkBox-GtkButton", "-0-0-0"), daysAgo: d, title: "♡")) }
        // The product page: one Share tap and its rule's kvc_error; three Add to cart; enters and leaves.
        events.append(event("ButtonClick", Self.detailShare, daysAgo: 1, title: "Share"))
        events.append(event("kvc_error", Self.detailShare, daysAgo: 1))
        for d in [1, 2, 3] as [Int64] { events.append(event("ButtonClick", Self.detailAdd, daysAgo: d, title: "Add to cart")) }
        for d in [1, 2, 3] as [Int64] {
            events.append(event("PageEnter", "GtkBox(detail)&0", daysAgo: d))
            events.append(event("PageLeave", "GtkBox(detail)&0", daysAgo: d))
        }
        // The cart page: two taps on its one box.
        for d in [1, 2] as [Int64] { events.append(event("ViewTap", "GtkBox(cart)&0", daysAgo: d)) }
        state.interactions = events
        // The home page's scrollmap: 5 visits, 4 scrolled, 4 past a quarter … 1 to the end.
        state.scrollDepths["GtkBox(home)"] = ScrollDepth(
            visits: 5, scrolled: 4, reached: zip(ScrollDepth.shares, [4, 3, 2, 1]).map { ScrollDepth.Reached(share: $0, visits: $1) })
        state.sets = [StudioRuleSet(appKey: "shop", etag: "etag-0", rules: [Self.openProductRule])]
        backend = FakeStudioBackend(state)
        handler = StudioHandler(backend: backend, configuration: StudioHandler.Configuration(isAdminToken: { $0 == Self.token }))
    }

    /// The rules of the shop as the back end holds them.
    var rules: [JSONValue] { backend.state.withLock { $0.sets.first { $0.appKey == "shop" }?.rules ?? [] } }

    func rule(_ id: String) -> JSONValue? { rules.first { $0["id"]?.stringValue == id } }
}
