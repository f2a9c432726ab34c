import Interactions
import ObjCRuntime
import ViewIdentity

/// Scrolls the user made in an AppKit app (docs/objc.md "Scrolling"): one `scroll` interaction
/// when an `NSScrollView` the user moved comes to rest (no movement for 300 ms), on the scroll
/// view, with its offset from the top of its document, the larger movement's direction since the
/// last rest, and the depth: the largest share of the document's height seen in this page visit.
///
/// The user moves a scroll view through `-[NSScrollView scrollWheel:]` (wheel, touchpad) and its
/// scrollers' actions (`sendAction:to:from:` from an `NSScroller` to the scroll view: a drag of the
/// knob, a click in the track or on an arrow); `moved` is told before each, and reads where the
/// view is then (after the movement before it). Where it came to rest is read at rest. Scrolling
/// the app does itself (`scrollToPoint:`, a text view following its insertion point) starts no
/// streak and gives nothing. Main thread only.
final class AppKitScrolling {
    /// No movement for this long: the view is at rest.
    static let restNanoseconds: UInt64 = 300_000_000

    /// One scroll view the user moved in its window's page visit; retained until the page is left.
    final class Watch {
        let view: ObjCObject
        let window: ObjCObject?
        /// The streak since the last rest; nil while the view is at rest.
        var streak: ScrollStreak?
        var lastMove: UInt64 = 0
        var restPending = false
        /// The largest share of the document's height seen in this page visit; nil: none yet.
        var depth: Double?

        init(view: ObjCObject, window: ObjCObject?) {
            self.view = view
            self.window = window
        }
    }

    private let clock: any InteractionClock
    private let report: (Interaction) -> Void
    private var watches: [UInt: Watch] = [:]

    init(clock: any InteractionClock, report: @escaping (Interaction) -> Void) {
        self.clock = clock
        self.report = report
    }

    /// The user is moving `scrollView` (told before the movement is made).
    func moved(_ scrollView: ObjCObject) {
        guard let position = AppKitScrolling.position(of: scrollView) else { return }
        let key = UInt(bitPattern: scrollView.pointer)
        let watch: Watch
        if let known = watches[key] {
            watch = known
        } else {
            scrollView.retain()
            watch = Watch(view: scrollView, window: (try? scrollView.send(AppKit.window)) ?? nil)
            watches[key] = watch
        }
        if watch.streak != nil {
            watch.streak?.step(toX: position.x, y: position.y)
        } else {
            watch.streak = ScrollStreak(x: position.x, y: position.y)
            watch.depth = max(watch.depth ?? 0, position.share)
        }
        watch.lastMove = clock.monotonicNanoseconds()
        if !watch.restPending {
            watch.restPending = true
            restSoon(watch, after: AppKitScrolling.restNanoseconds)
        }
    }

    /// A page was entered: scroll views in its window start a new visit (their depth forgotten).
    func pageEntered(_ window: ObjCObject) {
        for watch in watches.values where watch.window == window { watch.depth = nil }
    }

    /// A page was left: its window's scroll views are reported at rest if still moving, then forgotten.
    func pageLeft(_ window: ObjCObject) {
        for (key, watch) in watches where watch.window == window {
            rest(watch)
            watches[key] = nil
            watch.view.release()
        }
    }

    /// Reports every view still moving as at rest now (the app is ending).
    func restAll() {
        for watch in watches.values { rest(watch) }
    }

    /// Checks for rest `nanoseconds` from now, and again until the view has not moved for 300 ms.
    private func restSoon(_ watch: Watch, after nanoseconds: UInt64) {
        let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        let key = UInt(bitPattern: watch.view.pointer)
        MainThread.after(Double(nanoseconds) / 1e9) {
            guard let me = UnsafeMutableRawPointer(bitPattern: address) else { return }
            let scrolling = Unmanaged<AppKitScrolling>.fromOpaque(me).takeUnretainedValue()
            guard let watch = scrolling.watches[key], watch.restPending else { return }
            let still = scrolling.clock.monotonicNanoseconds() &- watch.lastMove
            if still >= AppKitScrolling.restNanoseconds {
                watch.restPending = false
                scrolling.rest(watch)
            } else {
                scrolling.restSoon(watch, after: AppKitScrolling.restNanoseconds - still)
            }
        }
    }

    /// The streak ends (where the view is now): one `scroll` interaction, unless nothing moved.
    private func rest(_ watch: Watch) {
        guard var streak = watch.streak else { return }
        watch.streak = nil
        guard let position = AppKitScrolling.position(of: watch.view) else { return }
        streak.step(toX: position.x, y: position.y)
        guard streak.moved else { return }
        let depth = max(watch.depth ?? 0, position.share)
        watch.depth = depth
        let node = AppKitNode.view(watch.view)
        guard !node.isInIgnoredView else { return }
        let page = AppKit.pageName(of: watch.window) ?? node.typeName
        var interaction = Interaction(
            kind: .scroll, node: node, eventCode: EventCode(controller: page, target: node.typeName, action: AppKitScrolling.action),
            title: nil, page: page, timestamp: clock.wallMilliseconds())
        interaction.scrollRest = streak.rest(depth: depth)
        interaction.knownPath = node.viewPath
        interaction.knownNodeTitle = .some(nil)
        report(interaction)
    }

    /// The Action of a scroll's event code (`Page#NSScrollView#scroll`).
    static let action = "scroll"

    /// Where `scrollView` shows its document: the visible part's offset from the document's left
    /// and top edge (AppKit's bottom-left origin converted for a document view that is not
    /// flipped), and `(offset.y + visible height) / document height`, 0 to 1 (1 when the whole
    /// document fits). Nil without a document view.
    static func position(of scrollView: ObjCObject) -> (x: Double, y: Double, share: Double)? {
        guard let clip = (try? scrollView.send(AppKit.contentView)) ?? nil,
            let document = (try? scrollView.send(AppKit.documentView)) ?? nil,
            let visible = try? clip.rect(AppKit.bounds), let frame = try? document.rect(AppKit.frame)
        else { return nil }
        let flipped = (try? document.bool(AppKit.isFlipped)) ?? false
        let y = flipped ? visible.y - frame.y : frame.height - (visible.y - frame.y + visible.height)
        let x = visible.x - frame.x
        guard frame.height > visible.height, frame.height > 0 else { return (x, max(0, y), 1) }
        return (x, max(0, y), min(1, max(0, (y + visible.height) / frame.height)))
    }
}
