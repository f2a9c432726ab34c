import EventModel
import KVCConfig
import PathDrift
import ViewIdentity

/// Small pages of a shop, before and after the refactors drift must see through, as tree JSON.
enum DriftTrees {
    /// One node of viewpath.md §1's JSON.
    static func node(
        _ type: String, role: String? = nil, id: String? = nil, title: String? = nil, props: String? = nil,
        indexPath: (Int, Int)? = nil, _ children: [String] = []
    ) -> String {
        var members = [#""type":\#(JSONValue.string(type).jsonText)"#]
        if let role { members.append(#""role":"\#(role)""#) }
        if let indexPath { members.append(#""indexPath":[\#(indexPath.0),\#(indexPath.1)]"#) }
        if let id { members.append(#""id":"\#(id)""#) }
        if let title { members.append(#""title":\#(JSONValue.string(title).jsonText)"#) }
        if let props { members.append(#""props":\#(props)"#) }
        if !children.isEmpty { members.append(#""children":[\#(children.joined(separator: ","))]"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    // MARK: The detail page: an image, a name, then Fav, Share and Add to cart buttons.

    static let product = #"{"product":{"id":"p-3","sku":"LS-3"}}"#

    static func button(_ id: String?, _ title: String) -> String {
        node("UIButton", id: id, title: title, props: product)
    }

    static let fav = button("fav", "Fav")
    static let share = button("share", "Share")
    static let cart = button("cart", "Add to cart")
    static let image = node("UIImageView", id: "image")
    static let name = node("UILabel", id: "name", title: "Linen shirt")

    static func detail(_ content: [String]) -> String {
        node("Shop.DetailViewController", role: "controller", id: "detail", props: product, [node("UIView", id: "root", content)])
    }

    static let detailBefore = detail([image, name, fav, share, cart])

    // MARK: The home page: a switch above a table of product cells, each with Fav, a name and Share.

    static let productNames = ["Red shoes", "Linen shirt", "Scale"]

    static func props(_ row: Int) -> String { #"{"product":{"id":"p-\#(row + 1)","price":\#(10 * (row + 1))}}"# }

    static func cell(_ row: Int, type: String) -> String {
        node(
            type, role: "cell", title: productNames[row], props: props(row), indexPath: (0, row),
            [
                node(
                    "UITableViewCellContentView",
                    [
                        node("UIButton", title: "Fav", props: props(row)), node("UILabel", title: productNames[row]),
                        node("UIButton", title: "Share", props: props(row)),
                    ])
            ])
    }

    static func home(cellType: String = "Shop.ProductCell") -> String {
        node(
            "Shop.HomeViewController", role: "controller",
            [node("UIView", [node("UISwitch"), node("UITableView", (0..<3).map { cell($0, type: cellType) })])])
    }

    // MARK: Rules

    static let rules = """
        {"rules": [
          {"id": "detail-share", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "DetailViewController-UIView-UIButton&0-0-1", "keyPath": "product.id", "keyName": "productId"},
          {"id": "detail-cart", "appKey": "shop", "appVersion": ">=1.2.0", "viewEvent": "ButtonClick",
           "viewPath": "DetailViewController-UIView-UIButton&0-0-2", "keyPath": "product.sku", "keyName": "sku",
           "content": "Add to cart"},
          {"id": "home-open", "appKey": "shop", "appVersion": "*", "viewEvent": "ListItemClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*", "keyPath": "product.id",
           "keyName": "productId"},
          {"id": "home-fav", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0",
           "keyPath": "product.id", "keyName": "productId"},
          {"id": "detail-enter", "appKey": "shop", "appVersion": "*", "viewEvent": "PageEnter",
           "viewPath": "DetailViewController&0", "keyPath": "product.id", "keyName": "productId"}
        ]}
        """

    static func plan() throws -> TrackingPlan { try ConfigLoader.parse(text: rules, file: "rules.json") }

    /// Drift of every rule, by rule id.
    static func drift(new: [String], old: [String]) throws -> [String: RuleDrift] {
        let d = PathDrift(trees: try trees(new), baseline: try trees(old))
        return Dictionary(uniqueKeysWithValues: d.check(try plan()).map { ($0.rule.id, $0) })
    }

    static func trees(_ texts: [String]) throws -> [TreeFile] {
        try texts.enumerated().map { i, t in TreeFile(path: "tree\(i).json", tree: try ViewTree(json: Array(t.utf8))) }
    }
}
