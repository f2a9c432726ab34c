import ViewIdentity

/// One thing the scripted user (or the system) does in the demo shop.
public enum DemoStep: Sendable, Hashable, CustomStringConvertible {
    /// Cold start: the window appears with the home page.
    case launch
    /// Time passes (dwell time for pages).
    case wait(milliseconds: Int64)
    /// Home: the favourite button of the visible row `row`.
    case tapFavourite(row: Int)
    /// Home: the share button of the visible row `row`.
    case tapShare(row: Int)
    /// Home: the "in stock only" switch.
    case toggleInStock
    /// Home: a drag that brings row `row` to the top (cells are reused).
    case scrollToRow(Int)
    /// Home: a tap on the visible row `row`, which opens its detail page.
    case selectRow(Int)
    /// Detail: the favourite button.
    case tapDetailFavourite
    /// Detail: the share button.
    case tapDetailShare
    /// Detail: the size segment `index` (0 S, 1 M, 2 L).
    case chooseSize(Int)
    /// Detail: "+" on the quantity stepper.
    case incrementQuantity
    /// Detail: a tap on the product image (a gesture).
    case tapProductImage
    /// Detail: the add-to-cart button.
    case addToCart
    /// The back button: pops the top page.
    case back
    /// The user leaves the app.
    case background
    /// The user comes back.
    case foreground

    public var description: String {
        switch self {
        case .launch: return "launch the app"
        case .wait(let ms): return "wait \(ms) ms"
        case .tapFavourite(let row): return "tap Fav on row \(row)"
        case .tapShare(let row): return "tap Share on row \(row)"
        case .toggleInStock: return "toggle the in-stock switch"
        case .scrollToRow(let row): return "scroll row \(row) to the top"
        case .selectRow(let row): return "select row \(row)"
        case .tapDetailFavourite: return "tap Favourite on the detail page"
        case .tapDetailShare: return "tap Share on the detail page"
        case .chooseSize(let i): return "choose size \(["S", "M", "L"].indices.contains(i) ? ["S", "M", "L"][i] : String(i))"
        case .incrementQuantity: return "tap + on the quantity"
        case .tapProductImage: return "tap the product image"
        case .addToCart: return "tap Add to cart"
        case .back: return "go back"
        case .background: return "send the app to the background"
        case .foreground: return "bring the app back"
        }
    }
}

/// A deterministic sequence of demo steps.
public struct DemoScript: Sendable, Hashable {
    public var steps: [DemoStep]

    public init(_ steps: [DemoStep]) {
        self.steps = steps
    }

    /// The standard session (docs/hooks.md lists the events it produces).
    public static let standard = DemoScript([
        .launch, .wait(milliseconds: 1500),
        .tapFavourite(row: 0), .wait(milliseconds: 500),
        .selectRow(2), .wait(milliseconds: 3000),
        .chooseSize(2), .incrementQuantity, .incrementQuantity, .tapProductImage, .tapDetailFavourite, .addToCart,
        .wait(milliseconds: 1000),
        .back, .wait(milliseconds: 500),
        .scrollToRow(6), .tapShare(row: 7), .selectRow(8), .wait(milliseconds: 2000),
        .tapDetailShare, .back, .wait(milliseconds: 700),
        .toggleInStock, .wait(milliseconds: 300),
        .background, .wait(milliseconds: 5000), .foreground, .wait(milliseconds: 1000),
    ])
}

/// A demo step that cannot be performed in the app's current state.
public struct DemoStepError: Error, Sendable, Hashable, CustomStringConvertible {
    public var step: DemoStep
    public var reason: String

    public var description: String { "demo step \"\(step)\" cannot run: \(reason)" }
}
