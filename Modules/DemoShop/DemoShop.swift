/// Namespace for the DemoShop module's shared constants.
public enum DemoShopModule {
    /// The module's name, as products and logs show it.
    public static let name = "DemoShop"
}
