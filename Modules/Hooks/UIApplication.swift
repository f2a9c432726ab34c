/// The app's lifecycle callbacks; every method has a default that does nothing.
public protocol UIApplicationDelegate: AnyObject {
    func applicationDidFinishLaunching(_ application: UIApplication)
    func applicationDidEnterBackground(_ application: UIApplication)
    func applicationWillEnterForeground(_ application: UIApplication)
    func applicationWillTerminate(_ application: UIApplication)
}

extension UIApplicationDelegate {
    public func applicationDidFinishLaunching(_ application: UIApplication) {}
    public func applicationDidEnterBackground(_ application: UIApplication) {}
    public func applicationWillEnterForeground(_ application: UIApplication) {}
    public func applicationWillTerminate(_ application: UIApplication) {}
}

/// The running app: its windows and its lifecycle, whose transitions are hookable (`app_start`…).
open class UIApplication: UIResponder {
    /// Where the app is in its life.
    public enum State: String, Sendable {
        case notRunning, active, background, terminated
    }

    /// Held strongly, as the system holds an app's delegate.
    public var delegate: (any UIApplicationDelegate)?
    public private(set) var state: State = .notRunning
    public private(set) var windows: [UIWindow] = []

    public override init() {
        super.init()
    }

    open override class var hookPoints: [AnyHookPoint] {
        super.hookPoints + [
            HookPoint.didFinishLaunching.erased, HookPoint.didEnterBackground.erased, HookPoint.willEnterForeground.erased,
            HookPoint.willTerminate.erased,
        ]
    }

    /// Adds a window to the app.
    public func addWindow(_ window: UIWindow) {
        window.application = self
        if !windows.contains(where: { $0 === window }) { windows.append(window) }
    }

    /// The cold start: tells the delegate that launching finished (it usually shows a window).
    /// Only the first call does anything.
    open func launch() {
        guard state == .notRunning else { return }
        state = .active
        aspects.invoke(.didFinishLaunching, on: self, arguments: ()) { delegate?.applicationDidFinishLaunching(self) }
    }

    /// The user leaves the app (home button, app switcher).
    open func enterBackground() {
        guard state == .active else { return }
        state = .background
        aspects.invoke(.didEnterBackground, on: self, arguments: ()) { delegate?.applicationDidEnterBackground(self) }
    }

    /// The user comes back to the app.
    open func enterForeground() {
        guard state == .background else { return }
        state = .active
        aspects.invoke(.willEnterForeground, on: self, arguments: ()) { delegate?.applicationWillEnterForeground(self) }
    }

    /// The app quits (from the foreground or the background); the delegate is told last. Only the
    /// first call of a launched app does anything.
    open func terminate() {
        guard state == .active || state == .background else { return }
        state = .terminated
        aspects.invoke(.willTerminate, on: self, arguments: ()) { delegate?.applicationWillTerminate(self) }
    }
}

extension HookPoint where Instance == UIApplication, Arguments == Void, Result == Void {
    /// The app's lifecycle; the delegate is told inside.
    public static var didFinishLaunching: Self { Self("application:didFinishLaunchingWithOptions:") }
    public static var didEnterBackground: Self { Self("applicationDidEnterBackground:") }
    public static var willEnterForeground: Self { Self("applicationWillEnterForeground:") }
    public static var willTerminate: Self { Self("applicationWillTerminate:") }
}
