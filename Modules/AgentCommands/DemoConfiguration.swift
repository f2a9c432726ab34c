public import KVCConfig

/// The demo shop's example tracking configuration, embedded so that `demo` runs from any
/// directory with no files; `Examples/` holds the same documents byte for byte (a test checks).
public enum DemoConfiguration {
    /// The app the demo runs as; the rules' app key and version ranges are written for it.
    public static let appKey = "shop"
    public static let appVersion = "1.2.0"

    /// The documents, by the file name they have in `Examples/`, in load order.
    public static let documents: [(file: String, text: String)] = [
        ("shop-events.json", events), ("shop-labels.plist", labels), ("shop-rules.json", rules),
    ]

    /// The documents merged into one plan.
    public static func plan() throws(ConfigError) -> TrackingPlan {
        var plan = TrackingPlan()
        for d in documents { try plan.merge(try ConfigLoader.parse(text: d.text, file: "(embedded) Examples/\(d.file)")) }
        return plan
    }

    /// `Examples/shop-events.json`: the event table (docs/config.md §1).
    public static let events = #"""
        {
          "HomeViewController": {
            "PageEventIDs": { "Enter": "EVENT_HOME_ENTER_PAGE", "Leave": "EVENT_HOME_LEAVE_PAGE" },
            "ControlEventIDs": {
              "onFavBtnPressed:": "CTRL_EVENT_HOME_FAV",
              "onShareBtnPressed:": "CTRL_EVENT_HOME_SHARE",
              "onInStockSwitchChanged:": "CTRL_EVENT_HOME_IN_STOCK",
              "tableView:didSelectRowAtIndexPath:": "CTRL_EVENT_HOME_OPEN_PRODUCT"
            }
          },
          "DetailViewController": {
            "PageEventIDs": { "Enter": "EVENT_DETAIL_ENTER_PAGE", "Leave": "EVENT_DETAIL_LEAVE_PAGE" },
            "ControlEventIDs": {
              "onFavBtnPressed:": "CTRL_EVENT_DETAIL_FAV",
              "onSizeChanged:": "CTRL_EVENT_DETAIL_SIZE",
              "onAddToCartPressed:": "CTRL_EVENT_DETAIL_ADD_TO_CART"
            }
          }
        }
        """#

    /// `Examples/shop-labels.plist`: labelled screens and events, as an XML property list (docs/config.md §2).
    public static let labels = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>trackedScreens</key>
        	<array>
        		<dict>
        			<key>class</key>
        			<string>HomeViewController</string>
        			<key>label</key>
        			<string>Home</string>
        		</dict>
        		<dict>
        			<key>class</key>
        			<string>DetailViewController</string>
        			<key>label</key>
        			<string>Product detail</string>
        		</dict>
        	</array>
        	<key>trackedEvents</key>
        	<array>
        		<dict>
        			<key>class</key>
        			<string>HomeViewController</string>
        			<key>selector</key>
        			<string>onFavBtnPressed:</string>
        			<key>label</key>
        			<string>Favourite from the list</string>
        		</dict>
        		<dict>
        			<key>class</key>
        			<string>DetailViewController</string>
        			<key>selector</key>
        			<string>onAddToCartPressed:</string>
        			<key>label</key>
        			<string>Add to cart</string>
        		</dict>
        	</array>
        </dict>
        </plist>
        """#

    /// `Examples/shop-rules.json`: the KVC rules (docs/config.md §3).
    public static let rules = #"""
        {
          "rules": [
            { "id": "home-open-product", "appKey": "shop", "appVersion": ">=1.0.0 <2.0.0",
              "viewEvent": "ListItemClick",
              "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*",
              "keyPath": "product.id", "keyName": "productId" },
            { "id": "home-fav-product", "appKey": "shop", "appVersion": ">=1.0.0 <2.0.0",
              "viewEvent": "ButtonClick",
              "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0",
              "keyPath": "superview.superview.product.id", "keyName": "productId" },
            { "id": "home-share-product", "appKey": "shop", "appVersion": ">=1.0.0 <2.0.0",
              "viewEvent": "ButtonClick",
              "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-1",
              "keyPath": "superview.superview.product.id", "keyName": "productId" },
            { "id": "detail-enter-product", "appKey": "shop", "appVersion": "*",
              "viewEvent": "PageEnter", "viewPath": "DetailViewController&0",
              "keyPath": "product.id", "keyName": "productId" },
            { "id": "gift-enter-product", "appKey": "shop", "appVersion": "*",
              "viewEvent": "PageEnter", "viewPath": "DetailViewController(gift)&0",
              "keyPath": "product.id", "keyName": "productId" },
            { "id": "gift-size-product", "appKey": "shop", "appVersion": "*",
              "viewEvent": "ValueChanged", "viewPath": "DetailViewController(gift)-UIView-UISegmentedControl&0-0-0",
              "keyPath": "parent.parent.product.id", "keyName": "productId" },
            { "id": "gift-cart-product", "appKey": "shop", "appVersion": ">=1.2.0",
              "viewEvent": "ButtonClick", "viewPath": "DetailViewController(gift)-UIView-UIButton&0-0-2",
              "keyPath": "parent.parent.product.id", "keyName": "productId", "content": "Add to cart" },
            { "id": "gift-cart-price", "appKey": "shop", "appVersion": ">=1.2.0",
              "viewEvent": "ButtonClick", "viewPath": "DetailViewController(gift)-UIView-UIButton&0-0-2",
              "keyPath": "parent.parent.product.price", "keyName": "price", "content": "Add to cart" },
            { "id": "detail-share-sku", "appKey": "shop", "appVersion": ">=1.2.0",
              "viewEvent": "ButtonClick", "viewPath": "DetailViewController-UIView-UIButton&0-0-1",
              "keyPath": "parent.parent.product.sku", "keyName": "sku" },
            { "id": "legacy-cart-sku", "appKey": "shop", "appVersion": "<1.0.0",
              "viewEvent": "ButtonClick", "viewPath": "DetailViewController(gift)-UIView-UIButton&0-0-2",
              "keyPath": "sku", "keyName": "sku" }
          ]
        }
        """#
}
