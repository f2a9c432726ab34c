public import Hooks
public import Interactions
import ViewIdentity

/// Runs the demo shop under hooks: builds the app in its own aspect registry, starts a
/// `HookSystem` for the observer first, then performs script steps.
///
/// With a `ManualInteractionClock` (the default) waits only move the clock, so a whole run takes
/// milliseconds and its timestamps and dwell times are exact.
public final class DemoRun {
    public let aspects: AspectRegistry
    public let clock: any InteractionClock
    public let hooks: HookSystem
    /// Built by the first step (or `perform(.launch)`).
    public private(set) var app: DemoShopApp?
    private let wait: (Int64) -> Void

    /// A run whose waits call `wait(milliseconds)` (sleep for real time, advance for a manual clock).
    public init(
        observer: any InteractionObserver, clock: any InteractionClock, aspects: AspectRegistry = AspectRegistry(),
        wait: @escaping (Int64) -> Void
    ) {
        self.aspects = aspects
        self.clock = clock
        self.wait = wait
        hooks = HookSystem(observer: observer, aspects: aspects, clock: clock)
    }

    /// A run on a manual clock: waits advance it, nothing sleeps.
    public convenience init(observer: any InteractionObserver, clock: ManualInteractionClock = ManualInteractionClock(), aspects: AspectRegistry = AspectRegistry()) {
        self.init(observer: observer, clock: clock, aspects: aspects, wait: { clock.advance(milliseconds: $0) })
    }

    /// Performs every step of `script` in order, telling `onStep` before each; stops at the first
    /// step that cannot run.
    public func run(_ script: DemoScript = .standard, onStep: (Int, DemoStep) -> Void = { _, _ in }) throws(DemoStepError) {
        for (i, step) in script.steps.enumerated() {
            onStep(i, step)
            try perform(step)
        }
    }

    /// Performs one step.
    public func perform(_ step: DemoStep) throws(DemoStepError) {
        let outcome: String? = AspectRegistry.$current.withValue(aspects) { apply(step) }
        if let outcome { throw DemoStepError(step: step, reason: outcome) }
    }

    /// Waits `ms`, looking at the window for impressions at its start and after every 100 ms of it,
    /// as a run loop's timer would (nothing happens while the observer has no impression rule).
    private func waitLookingForImpressions(_ ms: Int64) {
        var left = ms
        if let window = app?.window { hooks.checkImpressions(in: window) }
        while left > 0 {  // ms / 100 rounds at most
            let slice = min(left, 100)
            wait(slice)
            left -= slice
            if let window = app?.window { hooks.checkImpressions(in: window) }
        }
    }

    /// Runs `step`; returns why it could not, or nil.
    private func apply(_ step: DemoStep) -> String? {
        if case .launch = step {
            guard app == nil else { return "the app is already running" }
            do { try hooks.start() } catch { return error.description }
            let app = DemoShopApp()
            self.app = app
            app.application.launch()
            return nil
        }
        if case .wait(let ms) = step {
            guard ms >= 0 else { return "a wait must be 0 ms or more" }
            waitLookingForImpressions(ms)
            return nil
        }
        guard let app else { return "the app is not launched yet (start the script with launch)" }
        let home = app.home
        switch step {
        case .launch, .wait:
            return nil
        case .tapFavourite(let row), .tapShare(let row):
            guard let cell = home.tableView.cellForRow(at: CellIndexPath(section: 0, row: row)) as? ProductCell else {
                return "row \(row) is not visible on the home page"
            }
            guard app.navigation.topViewController === home else { return "the home page is not shown" }
            if case .tapFavourite = step { cell.favButton.tap() } else { cell.shareButton.tap() }
        case .toggleInStock:
            guard app.navigation.topViewController === home else { return "the home page is not shown" }
            home.inStockSwitch.toggle()
        case .scrollToRow(let row):
            guard row >= 0, row < home.listed.count else { return "there is no row \(row)" }
            home.tableView.dragToRow(at: CellIndexPath(section: 0, row: row))
        case .selectRow(let row):
            guard app.navigation.topViewController === home else { return "the home page is not shown" }
            guard home.tableView.selectRow(at: CellIndexPath(section: 0, row: row)) else {
                return "row \(row) is not visible on the home page"
            }
        case .tapDetailFavourite, .tapDetailShare, .chooseSize, .incrementQuantity, .tapProductImage, .addToCart:
            guard let detail = app.detail else { return "no detail page is shown" }
            switch step {
            case .tapDetailFavourite: detail.favButton.tap()
            case .tapDetailShare: detail.shareButton.tap()
            case .chooseSize(let i):
                guard detail.sizeControl.items.indices.contains(i) else { return "there is no size \(i)" }
                detail.sizeControl.select(segment: i)
            case .incrementQuantity: detail.quantityStepper.increment()
            case .tapProductImage: detail.imageView.gestureRecognizers.first?.recognize()
            default: detail.addToCartButton.tap()
            }
        case .back:
            guard app.navigation.popViewController() != nil else { return "the home page has nothing to go back to" }
        case .background:
            guard app.application.state == .active else { return "the app is not active" }
            app.application.enterBackground()
        case .foreground:
            guard app.application.state == .background else { return "the app is not in the background" }
            app.application.enterForeground()
        }
        return nil
    }
}
