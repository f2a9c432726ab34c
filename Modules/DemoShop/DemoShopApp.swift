public import Hooks

/// The demo shop: an application with one window showing a navigation stack that starts at home.
///
/// Build it inside the aspect registry the hooks watch (see `DemoRun`), and start the hooks
/// first: like swizzling on iOS, they see only targets added after they start.
public final class DemoShopApp {
    public let application = UIApplication()
    public let window = UIWindow()
    public let home: HomeViewController
    public let navigation: UINavigationController
    private let appDelegate: DemoShopAppDelegate

    public init(catalogue: [Product] = Product.catalogue) {
        home = HomeViewController(catalogue: catalogue)
        navigation = UINavigationController(rootViewController: home)
        appDelegate = DemoShopAppDelegate()
        appDelegate.window = window
        appDelegate.navigation = navigation
        application.delegate = appDelegate
        application.addWindow(window)
        home.openProduct = { [unowned navigation] product in
            navigation.pushViewController(DetailViewController(product: product))
        }
    }

    /// The detail page on top, if one is shown.
    public var detail: DetailViewController? { navigation.topViewController as? DetailViewController }
}

/// Shows the window when launching finishes, as an app delegate does.
final class DemoShopAppDelegate: UIApplicationDelegate {
    weak var window: UIWindow?
    weak var navigation: UINavigationController?

    func applicationDidFinishLaunching(_ application: UIApplication) {
        guard let window, let navigation else { return }
        window.rootViewController = navigation
        window.makeKeyAndVisible()
    }
}
