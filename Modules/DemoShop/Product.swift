/// One product of the demo shop's catalogue.
public struct Product: Sendable, Hashable {
    public var id: String
    public var name: String
    public var price: Double
    /// Gift products open their detail page under the alias `gift`.
    public var isGift: Bool
    public var inStock: Bool

    public init(id: String, name: String, price: Double, isGift: Bool = false, inStock: Bool = true) {
        self.id = id
        self.name = name
        self.price = price
        self.isGift = isGift
        self.inStock = inStock
    }

    /// The fixed catalogue the demo shows, `p-1` to `p-12`; `p-3` and `p-8` are gifts, `p-5` and `p-11` are sold out.
    public static let catalogue: [Product] = [
        Product(id: "p-1", name: "Espresso Cup", price: 12.5),
        Product(id: "p-2", name: "Pour-over Kettle", price: 39.0),
        Product(id: "p-3", name: "Gift Card", price: 25.0, isGift: true),
        Product(id: "p-4", name: "Burr Grinder", price: 89.99),
        Product(id: "p-5", name: "Milk Jug", price: 15.0, inStock: false),
        Product(id: "p-6", name: "Tamper", price: 19.5),
        Product(id: "p-7", name: "Scale", price: 45.0),
        Product(id: "p-8", name: "Tasting Box", price: 30.0, isGift: true),
        Product(id: "p-9", name: "Paper Filters", price: 4.75),
        Product(id: "p-10", name: "Cold Brew Jar", price: 22.0),
        Product(id: "p-11", name: "Travel Mug", price: 18.0, inStock: false),
        Product(id: "p-12", name: "Descaler", price: 9.0),
    ]
}
