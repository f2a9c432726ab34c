import Interactions
import ObjCRuntime
import Synchronization
import ViewIdentity

/// Impressions in an AppKit app (docs/objc.md "Impressions"): while the observer has impression
/// rules, the main run loop looks at every window shown as a page every 100 ms and hands
/// `ImpressionWatcher` each view whose class an impression rule names, and each visible row of a
/// table (`NSTableRow`) when a rule names rows, with the share of its rect inside the window's
/// content view and inside every `NSClipView` above it (what a scroll view shows).
///
/// Without impression rules there is no timer and no walk: the rules' changes (told on the config
/// refresher's thread) reach the main thread through `MainThread.async`. Main thread only.
final class AppKitImpressions {
    /// How often the windows are looked at, in seconds.
    static let interval = 0.1

    let watcher: ImpressionWatcher
    /// The windows to look at (the pages shown).
    private let windows: () -> [ObjCObject]
    private var started = false
    private var listening = false
    private var ticking = false
    /// The class names of `watcher.elementNames` (a page's name without its alias).
    private var typeNames: Set<String> = []

    init(rules: any ImpressionRules, clock: any InteractionClock, windows: @escaping () -> [ObjCObject], report: @escaping (Interaction) -> Void) {
        watcher = ImpressionWatcher(rules: rules, clock: clock, report: report)
        self.windows = windows
    }

    /// Starts watching: from the first page entered if rules exist, else when rules arrive. No
    /// timer is set here: `start` may run in the preload's constructor, before the run loop (and
    /// the runtime's own setup of the library) is there. The object must live for the rest of the
    /// process (the hook system keeps it).
    func start() {
        guard !started else { return }
        started = true
        readRules()
        guard !listening else { return }
        listening = true
        let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        // Told on the config refresher's thread after every swap of rules: the main thread is
        // asked (through the Objective-C runtime) only when the names to watch changed.
        let rules = watcher.rules
        let known = Mutex(rules.impressionElementNames)
        rules.onImpressionRulesChange {
            let names = rules.impressionElementNames
            guard known.withLock({ k in
                defer { k = names }
                return k != names
            }) else { return }
            MainThread.async {
                guard let me = UnsafeMutableRawPointer(bitPattern: address) else { return }
                Unmanaged<AppKitImpressions>.fromOpaque(me).takeUnretainedValue().rulesChanged()
            }
        }
    }

    func stop() {
        started = false
        readRules()
    }

    func pageEntered(_ page: AppKitNode) {
        watcher.pageEntered(page)
        tickIfWatching()
    }

    /// The rules changed (on the main thread): read them, and start the looks when some apply.
    private func rulesChanged() {
        readRules()
        tickIfWatching()
    }

    private func readRules() {
        _ = watcher.rulesChanged()
        typeNames = Set(watcher.elementNames.map { name in name.firstIndex(of: "(").map { String(name[..<$0]) } ?? name })
    }

    /// Starts the looks when rules apply and none are under way (they stop by themselves when none do).
    private func tickIfWatching() {
        guard started, !watcher.elementNames.isEmpty, !ticking else { return }
        ticking = true
        tickSoon()
    }

    private func tickSoon() {
        let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        MainThread.after(AppKitImpressions.interval) {
            guard let me = UnsafeMutableRawPointer(bitPattern: address) else { return }
            let impressions = Unmanaged<AppKitImpressions>.fromOpaque(me).takeUnretainedValue()
            guard impressions.started, !impressions.watcher.elementNames.isEmpty else {
                impressions.ticking = false
                return
            }
            impressions.look()
            impressions.tickSoon()
        }
    }

    /// One look at every window shown as a page.
    func look() {
        var sightings: [ImpressionWatcher.Sighting] = []
        withAutoreleasePool {
            for window in windows() where (try? window.bool(AppKit.isVisible)) == true {
                guard let content = (try? window.send(AppKit.contentView)) ?? nil, let bounds = AppKitImpressions.rect(of: content)
                else { continue }
                collect(content, clip: bounds, into: &sightings)
            }
        }
        watcher.look(at: sightings)
    }

    /// `view` and the views below it whose class a rule names, each with the share of its rect
    /// inside `clip` (window coordinates). A view entirely outside `clip`, or hidden, is skipped
    /// with everything inside it.
    private func collect(_ view: ObjCObject, clip: ViewRect, into out: inout [ImpressionWatcher.Sighting]) {
        guard (try? view.bool(AppKit.isHidden)) != true, let rect = AppKitImpressions.rect(of: view) else { return }
        let fraction = rect.fraction(visibleIn: clip)
        guard fraction > 0 else { return }
        let name = view.className
        if typeNames.contains(name) {
            out.append(ImpressionWatcher.Sighting(node: AppKitNode.view(view), fraction: fraction))
        }
        let inner = AppKitImpressions.scrolls(view) ? clip.intersection(rect) : clip
        if typeNames.contains("NSTableRow"), let table = AppKit.tableViewClass, view.isKind(of: table) {
            for row in (try? view.visibleRows()) ?? 0..<0 {
                guard let r = try? view.rectOfRow(row), let inWindow = try? view.convert(r, to: nil) else { continue }
                let share = AppKitImpressions.viewRect(inWindow).fraction(visibleIn: inner)
                if share > 0 { out.append(ImpressionWatcher.Sighting(node: AppKitNode(.tableRow(table: view, row: row)), fraction: share)) }
            }
        }
        // The matrix's cells and a table's rows are not views; every other view's subviews are.
        for subview in AppKit.subviews(of: view) { collect(subview, clip: inner, into: &out) }
    }

    /// Whether `view` shows only part of what it holds: the clip view of a scroll view.
    static func scrolls(_ view: ObjCObject) -> Bool {
        guard let clipView = AppKit.clipViewClass else { return false }
        return view.isKind(of: clipView)
    }

    /// The view's bounds in its window's coordinates.
    static func rect(of view: ObjCObject) -> ViewRect? {
        guard let bounds = try? view.rect(AppKit.bounds), let inWindow = try? view.convert(bounds, to: nil) else { return nil }
        return viewRect(inWindow)
    }

    static func viewRect(_ r: ObjCRect) -> ViewRect { ViewRect(x: r.x, y: r.y, width: r.width, height: r.height) }
}
