import EventModel
import Interactions
import ObjCRuntime
import ViewIdentity

/// Pictures for the studio (docs/objc.md "Pictures"): a page's window drawn in process into a
/// PNG, typed and secure text painted over, with the page's tree of that moment, frames in the
/// PNG's pixels (top-left origin).
final class AppKitSnapshots {
    private let send: (PageSnapshot) -> Void
    private let clock: any InteractionClock

    init(clock: any InteractionClock, send: @escaping (PageSnapshot) -> Void) {
        self.clock = clock
        self.send = send
    }

    /// Takes the snapshot of `window`'s page now and sends it; false when drawing failed.
    @discardableResult
    func take(_ window: ObjCObject) -> Bool {
        let page = AppKitNode.page(of: window)
        var blanked: [ObjCRect] = []
        let tree = AppKitTrees.tree(page: page, window: window, blankTypedText: true, blanked: &blanked)
        guard let picture = window.windowPicture(blanking: blanked), picture.width > 0, picture.height > 0 else { return false }
        send(
            PageSnapshot(
                page: page.pathName, capturedAt: clock.wallMilliseconds(), width: picture.width, height: picture.height, png: picture.png,
                tree: tree))
        return true
    }
}
