/// The hookable methods of the object model, by selector-style name, as `AspectRegistry` knows them.
public enum HookPoint {
    /// `UIControl`: an action was registered (advice sees `[target, action, events]`; the result is the entry).
    public static let addTarget = "addTarget:action:forControlEvents:"
    /// `UIControl`: actions were removed (`[target?, action?, events]`).
    public static let removeTarget = "removeTarget:action:forControlEvents:"
    /// `UIControl`: one action is sent to one target (`[action, target, events]`).
    public static let sendAction = "sendAction:to:forEvent:"
    /// `UIGestureRecognizer`: an action was registered (`[target, action]`).
    public static let gestureAddTarget = "addTarget:action:"
    /// `UIGestureRecognizer`: actions were removed (`[target?, action?]`).
    public static let gestureRemoveTarget = "removeTarget:action:"
    /// `UIViewController` lifecycle (`[animated]`).
    public static let viewDidLoad = "viewDidLoad"
    public static let viewWillAppear = "viewWillAppear:"
    public static let viewDidAppear = "viewDidAppear:"
    public static let viewWillDisappear = "viewWillDisappear:"
    public static let viewDidDisappear = "viewDidDisappear:"
    /// `UITableView`: the user selected a row (`[indexPath]`); the delegate is told inside.
    public static let didSelectRow = "tableView:didSelectRowAtIndexPath:"
    /// `UIScrollView`: a drag ended (`[offset]`); the delegate is told inside.
    public static let didEndDragging = "scrollViewDidEndDragging:willDecelerate:"
    /// `UIApplication` lifecycle (`[]`).
    public static let didFinishLaunching = "application:didFinishLaunchingWithOptions:"
    public static let didEnterBackground = "applicationDidEnterBackground:"
    public static let willEnterForeground = "applicationWillEnterForeground:"
}
