/// A product the shop sells: the app's business data, kept in its own model, never on widgets.
public struct Product: Sendable, Hashable, Identifiable {
    public var id: String
    public var name: String
    /// In cents.
    public var priceCents: Int

    public init(id: String, name: String, priceCents: Int) {
        self.id = id
        self.name = name
        self.priceCents = priceCents
    }

    /// `24.00 €`.
    public var priceText: String {
        let cents = priceCents % 100
        return "\(priceCents / 100).\(cents < 10 ? "0" : "")\(cents) €"
    }

    /// The catalogue the shop opens with, in its featured order.
    public static let catalogue: [Product] = [
        Product(id: "p-1", name: "Teapot", priceCents: 2400),
        Product(id: "p-2", name: "Mug", priceCents: 900),
        Product(id: "p-3", name: "Kettle", priceCents: 4900),
        Product(id: "p-4", name: "Tea tin", priceCents: 1250),
    ]
}

/// How the product list is ordered; the raw value is the row of the sort drop-down.
public enum ProductOrder: Int, Sendable, CaseIterable {
    case featured, priceAscending, priceDescending

    public var title: String {
        switch self {
        case .featured: return "Featured"
        case .priceAscending: return "Price: low to high"
        case .priceDescending: return "Price: high to low"
        }
    }

    public func sorted(_ products: [Product]) -> [Product] {
        switch self {
        case .featured: return products
        case .priceAscending: return products.sorted { $0.priceCents < $1.priceCents }
        case .priceDescending: return products.sorted { $0.priceCents > $1.priceCents }
        }
    }
}

/// The shopper's state: cart lines and favourites.
public struct ShopState: Sendable, Hashable {
    public struct Line: Sendable, Hashable {
        public var product: Product
        public var quantity: Int
        public var giftWrapped: Bool
    }

    public private(set) var lines: [Line] = []
    public private(set) var favourites: Set<String> = []

    public init() {}

    public mutating func add(_ product: Product, quantity: Int, giftWrapped: Bool) {
        lines.append(Line(product: product, quantity: quantity, giftWrapped: giftWrapped))
    }

    /// Flips `product`'s favourite mark; returns whether it is a favourite now.
    public mutating func toggleFavourite(_ product: Product) -> Bool {
        if favourites.remove(product.id) != nil { return false }
        favourites.insert(product.id)
        return true
    }

    public var itemCount: Int { lines.reduce(0) { $0 + $1.quantity } }
}
