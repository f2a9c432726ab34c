import CGtk

/// The shop's window: a product list and a product page in a `GtkStack`. Plain GTK code with
/// no tracking calls at all; Autotrack sees it from outside (`autotrack-agent run`).
///
/// Widget names (`fav`, `addToCart`…) are there as any GTK app sets them, for CSS and tests.
final class ShopWindow {
    private(set) var state = ShopState()
    private var order = ProductOrder.featured
    private var shown: [Product] = []
    private var current: Product?
    private var zoomed = false
    /// The cart label lists the cart's lines (a tap on it switches) instead of counting its items.
    private var cartListed = false

    let window: UnsafeMutablePointer<GtkWidget>
    private let stack: UnsafeMutablePointer<GtkWidget>
    private let list: UnsafeMutablePointer<GtkWidget>
    private let productFrame: UnsafeMutablePointer<GtkWidget>
    private let priceLabel: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let quantity: UnsafeMutablePointer<GtkWidget>
    private let gift: UnsafeMutablePointer<GtkWidget>
    /// What the customer types for the gift card (kept from product to product): typed text,
    /// never shown in snapshots.
    private let giftNote: UnsafeMutablePointer<GtkWidget>
    private let favButton: UnsafeMutablePointer<GtkWidget>
    private let cartLabel: UnsafeMutablePointer<GtkWidget>

    init(onClose: @escaping () -> Void) {
        window = gtk_window_new()
        gtk_window_set_title(window.as(GtkWindow.self), "Autotrack Shop")
        gtk_window_set_default_size(window.as(GtkWindow.self), 420, 560)

        let root = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        stack = gtk_stack_new()
        gtk_widget_set_vexpand(stack, 1)
        gtk_box_append(root.as(GtkBox.self), stack)
        cartLabel = ShopWindow.label("Cart: empty", name: "cart")
        // What is in the cart is the customer's business: blanked in snapshots, and taps on it are
        // not tracked (docs/privacy.md).
        gtk_widget_add_css_class(cartLabel, "autotrack-ignore")
        gtk_box_append(root.as(GtkBox.self), cartLabel)
        gtk_window_set_child(window.as(GtkWindow.self), root)

        let home = HomePage()
        list = home.list
        _ = gtk_stack_add_named(stack.opaque, home.box, "home")
        let detail = ProductPage()
        productFrame = detail.frame
        priceLabel = detail.price
        picture = detail.picture
        quantity = detail.quantity
        gift = detail.gift
        giftNote = detail.giftNote
        favButton = detail.fav
        _ = gtk_stack_add_named(stack.opaque, detail.box, "detail")
        gtk_stack_set_visible_child_name(stack.opaque, "home")

        connectHandlers(home: home, detail: detail, onClose: onClose)
        fillList()
    }

    /// The home page: sort order and the product list.
    private struct HomePage {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        let sort: UnsafeMutablePointer<GtkWidget>
        let list: UnsafeMutablePointer<GtkWidget>

        init() {
            let sortModel = gtk_string_list_new(nil)!
            for o in ProductOrder.allCases { gtk_string_list_append(sortModel, o.title) }
            sort = gtk_drop_down_new(sortModel, nil)!
            gtk_widget_set_name(sort, "sort")
            gtk_box_append(box.as(GtkBox.self), sort)
            list = gtk_list_box_new()
            gtk_widget_set_name(list, "products")
            let scroller = gtk_scrolled_window_new()!
            gtk_widget_set_vexpand(scroller, 1)
            gtk_scrolled_window_set_child(scroller.opaque, list)
            gtk_box_append(box.as(GtkBox.self), scroller)
        }
    }

    /// The product page: back, then the product's frame with price, picture, quantity, gift
    /// wrap, gift note and the action buttons.
    private struct ProductPage {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        let back: UnsafeMutablePointer<GtkWidget>
        let frame: UnsafeMutablePointer<GtkWidget>
        let price: UnsafeMutablePointer<GtkWidget>
        let picture: UnsafeMutablePointer<GtkWidget>
        let quantity: UnsafeMutablePointer<GtkWidget>
        let gift: UnsafeMutablePointer<GtkWidget>
        let giftNote: UnsafeMutablePointer<GtkWidget>
        let fav: UnsafeMutablePointer<GtkWidget>
        let share: UnsafeMutablePointer<GtkWidget>
        let add: UnsafeMutablePointer<GtkWidget>

        init() {
            back = gtk_button_new_with_label("Back")!
            gtk_widget_set_name(back, "back")
            gtk_box_append(box.as(GtkBox.self), back)
            frame = gtk_frame_new("")
            gtk_widget_set_name(frame, "product")
            let body = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
            price = ShopWindow.label("", name: "price")
            gtk_box_append(body.as(GtkBox.self), price)
            picture = ShopWindow.label("[ picture ]", name: "picture")
            gtk_widget_set_size_request(picture, -1, 80)
            gtk_box_append(body.as(GtkBox.self), picture)
            quantity = gtk_spin_button_new_with_range(1, 10, 1)
            gtk_widget_set_name(quantity, "quantity")
            gtk_box_append(body.as(GtkBox.self), ShopWindow.row("Quantity", quantity))
            gift = gtk_switch_new()
            gtk_widget_set_name(gift, "gift")
            gtk_box_append(body.as(GtkBox.self), ShopWindow.row("Gift wrap", gift))
            giftNote = gtk_entry_new()
            gtk_widget_set_name(giftNote, "giftNote")
            gtk_entry_set_placeholder_text(giftNote.as(GtkEntry.self), "Gift note")
            gtk_box_append(body.as(GtkBox.self), giftNote)
            let actions = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
            fav = ShopWindow.button("♡ Favourite", name: "fav")
            share = ShopWindow.button("Share", name: "share")
            add = ShopWindow.button("Add to cart", name: "addToCart")
            for b in [fav, share, add] { gtk_box_append(actions.as(GtkBox.self), b) }
            gtk_box_append(body.as(GtkBox.self), actions)
            gtk_frame_set_child(frame.as(GtkFrame.self), body)
            gtk_box_append(box.as(GtkBox.self), frame)
        }
    }

    /// The app's own handlers: opening a product, sorting, back, favourite, add to cart, the
    /// picture's zoom, closing (also Ctrl+Q).
    private func connectHandlers(home: HomePage, detail: ProductPage, onClose: @escaping () -> Void) {
        let sort = home.sort
        GtkSignals.connect(list.raw, "row-activated") { [unowned self] row in
            guard let row else { return }
            let i = Int(gtk_list_box_row_get_index(row.assumingMemoryBound(to: GtkListBoxRow.self)))
            if shown.indices.contains(i) { open(shown[i]) }
        }
        GtkSignals.connect(sort.raw, "notify::selected") { [unowned self] _ in
            let i = Int(gtk_drop_down_get_selected(sort.opaque))
            order = ProductOrder(rawValue: i) ?? .featured
            fillList()
        }
        GtkSignals.connect(detail.back.raw, "clicked") { [unowned self] in
            gtk_stack_set_visible_child_name(stack.opaque, "home")
        }
        GtkSignals.connect(favButton.raw, "clicked") { [unowned self] in
            guard let current else { return }
            let on = state.toggleFavourite(current)
            gtk_button_set_label(favButton.as(GtkButton.self), on ? "♥ Favourite" : "♡ Favourite")
        }
        GtkSignals.connect(detail.share.raw, "clicked") {}
        GtkSignals.connect(detail.add.raw, "clicked") { [unowned self] in
            guard let current else { return }
            let q = Int(gtk_spin_button_get_value_as_int(quantity.opaque))
            state.add(current, quantity: q, giftWrapped: gtk_switch_get_active(gift.opaque) != 0)
            showCart()
        }
        // A tap on the cart label lists what is in the cart (the label is autotrack-ignore: not tracked).
        let cartTap = gtk_gesture_click_new()!
        GtkSignals.connectReleased(UnsafeMutableRawPointer(cartTap)) { [unowned self] in
            cartListed.toggle()
            showCart()
        }
        gtk_widget_add_controller(cartLabel, cartTap)
        let tap = gtk_gesture_click_new()!
        GtkSignals.connectReleased(UnsafeMutableRawPointer(tap)) { [unowned self] in
            zoomed.toggle()
            gtk_label_set_text(picture.opaque, zoomed ? "[ PICTURE ]" : "[ picture ]")
        }
        gtk_widget_add_controller(picture, tap)
        GtkSignals.connectCloseRequest(window.raw, onClose)
        // Ctrl+Q closes the shop, as in most GTK applications.
        let keys = gtk_event_controller_key_new()!
        GtkSignals.connectKeyPressed(UnsafeMutableRawPointer(keys)) { [unowned self] keyval, state in
            guard keyval == UInt32(GDK_KEY_q), state & GDK_CONTROL_MASK.rawValue != 0 else { return false }
            gtk_window_close(window.as(GtkWindow.self))
            return true
        }
        gtk_widget_add_controller(window, keys)
    }

    /// Rebuilds the product list in the current order (code, not the user, changes these widgets).
    private func fillList() {
        while let row = gtk_widget_get_first_child(list) { gtk_list_box_remove(list.opaque, row) }
        shown = order.sorted(Product.catalogue)
        for product in shown {
            let frame = gtk_frame_new(product.name)!
            let line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
            let price = ShopWindow.label(product.priceText, name: "price")
            gtk_widget_set_hexpand(price, 1)
            gtk_box_append(line.as(GtkBox.self), price)
            let fav = ShopWindow.button(state.favourites.contains(product.id) ? "♥" : "♡", name: "fav")
            let share = ShopWindow.button("Share", name: "share")
            gtk_box_append(line.as(GtkBox.self), fav)
            gtk_box_append(line.as(GtkBox.self), share)
            gtk_frame_set_child(frame.as(GtkFrame.self), line)
            gtk_list_box_append(list.opaque, frame)
            GtkSignals.connect(fav.raw, "clicked") { [unowned self] in
                let on = state.toggleFavourite(product)
                gtk_button_set_label(fav.as(GtkButton.self), on ? "♥" : "♡")
            }
            GtkSignals.connect(share.raw, "clicked") {}
        }
    }

    private func showCart() {
        let text =
            state.lines.isEmpty
            ? "Cart: empty"
            : cartListed
                ? "Cart: " + state.lines.map { "\($0.quantity) × \($0.product.name)" }.joined(separator: ", ")
                : "Cart: \(state.itemCount) items"
        gtk_label_set_text(cartLabel.opaque, text)
    }

    /// Shows `product` on the product page; the page's controls start over, set by code.
    private func open(_ product: Product) {
        current = product
        gtk_frame_set_label(productFrame.as(GtkFrame.self), product.name)
        gtk_label_set_text(priceLabel.opaque, product.priceText)
        gtk_spin_button_set_value(quantity.opaque, 1)
        gtk_switch_set_active(gift.opaque, 0)
        gtk_button_set_label(favButton.as(GtkButton.self), state.favourites.contains(product.id) ? "♥ Favourite" : "♡ Favourite")
        gtk_stack_set_visible_child_name(stack.opaque, "detail")
    }

    private static func label(_ text: String, name: String) -> UnsafeMutablePointer<GtkWidget> {
        let l = gtk_label_new(text)!
        gtk_widget_set_name(l, name)
        return l
    }

    private static func button(_ text: String, name: String) -> UnsafeMutablePointer<GtkWidget> {
        let b = gtk_button_new_with_label(text)!
        gtk_widget_set_name(b, name)
        return b
    }

    /// A caption and a control side by side.
    private static func row(_ caption: String, _ control: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget> {
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        let l = gtk_label_new(caption)!
        gtk_widget_set_hexpand(l, 1)
        gtk_box_append(box.as(GtkBox.self), l)
        gtk_box_append(box.as(GtkBox.self), control)
        return box
    }
}
