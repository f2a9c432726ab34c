import DemoShop
import EventModel
import Hooks
import Interactions
import Testing

@Suite struct PageTests {
    @Test func pagesReportEnterAndLeaveWithExactDwellAndCounts() throws {
        let recorder = InteractionRecorder()
        let clock = ManualInteractionClock(wallMilliseconds: 5_000)
        let session = DemoRun(observer: recorder, clock: clock)
        for step: DemoStep in [
            .launch, .wait(milliseconds: 1234), .selectRow(0), .wait(milliseconds: 42), .back, .wait(milliseconds: 10),
            .selectRow(2), .wait(milliseconds: 7), .back,
        ] {
            try session.perform(step)
        }
        let pages = recorder.events.filter { $0.type == .pageEnter || $0.type == .pageLeave }
        #expect(pages.map { "\($0.type.rawValue) \($0.name) \($0.duration.map(String.init) ?? "-") \($0.props["count"]?.intValue ?? -1)" } == [
            "page_enter HomeViewController - 1",
            "page_leave HomeViewController 1234 1",
            "page_enter DetailViewController - 1",
            "page_leave DetailViewController 42 1",
            "page_enter HomeViewController - 2",
            "page_leave HomeViewController 10 2",
            "page_enter DetailViewController(gift) - 1",
            "page_leave DetailViewController(gift) 7 1",
            "page_enter HomeViewController - 3",
        ])
        #expect(pages.map(\.ts) == [5_000, 6_234, 6_234, 6_276, 6_276, 6_286, 6_286, 6_293, 6_293])
        #expect(pages[1].path == "HomeViewController&0")
        #expect(pages[6].path == "DetailViewController(gift)&0")
        #expect(session.hooks.pageCounts == ["HomeViewController": 3, "DetailViewController": 1, "DetailViewController(gift)": 1])
    }

    @Test func containersAreNotPagesAndLifecycleRunsInOrder() throws {
        let rig = HookRig()
        final class Screen: UIViewController {
            var calls: [String] = []
            override func viewWillAppear(_ animated: Bool) { calls.append("willAppear") }
            override func viewDidAppear(_ animated: Bool) { calls.append("didAppear") }
            override func viewWillDisappear(_ animated: Bool) { calls.append("willDisappear") }
            override func viewDidDisappear(_ animated: Bool) { calls.append("didDisappear") }
        }
        let (window, nav, a, b) = rig.build { () -> (UIWindow, UINavigationController, Screen, Screen) in
            let a = Screen()
            let nav = UINavigationController(rootViewController: a)
            let window = UIWindow()
            window.rootViewController = nav
            window.makeKeyAndVisible()
            return (window, nav, a, Screen())
        }
        rig.clock.advance(milliseconds: 100)
        rig.build { nav.pushViewController(b) }
        rig.clock.advance(milliseconds: 50)
        nav.popViewController()
        #expect(a.calls == ["willAppear", "didAppear", "willDisappear", "didDisappear", "willAppear", "didAppear"])
        #expect(b.calls == ["willAppear", "didAppear", "willDisappear", "didDisappear"])
        #expect(rig.recorder.summary.allSatisfy { !$0.contains("UINavigationController") })
        #expect(rig.recorder.events.compactMap(\.duration) == [100, 50])
        #expect(b.parent == nil && nav.viewControllers.count == 1)
        _ = window
    }

    @Test func aPageThatAppearedBeforeTheHooksStartedLeavesWithoutADuration() throws {
        let rig = HookRig(start: false)
        final class Screen: UIViewController {}
        let (window, screen) = rig.show { Screen() }
        try rig.hooks.start()
        rig.clock.advance(milliseconds: 10)
        screen.performDisappear()
        let leave = try #require(rig.recorder.events.last)
        #expect(leave.type == .pageLeave)
        #expect(leave.duration == nil)
        _ = window
    }
}

@Suite struct AppLifecycleTests {
    @Test func coldStartBackgroundAndForeground() throws {
        let recorder = InteractionRecorder()
        let clock = ManualInteractionClock(wallMilliseconds: 0)
        let session = DemoRun(observer: recorder, clock: clock)
        try session.perform(.launch)
        try session.perform(.wait(milliseconds: 10))
        try session.perform(.background)
        try session.perform(.wait(milliseconds: 20))
        try session.perform(.foreground)
        // A second launch of a running app is refused and reports nothing.
        #expect(throws: DemoStepError.self) { try session.perform(.launch) }
        session.app?.application.launch()
        #expect(recorder.summary == [
            "app_start app_start", "page_enter HomeViewController", "app_background app_background",
            "app_foreground app_foreground",
        ])
        #expect(recorder.events.map(\.ts) == [0, 0, 10, 30])
        #expect(recorder.events[0].path == nil && recorder.events[0].props.isEmpty)
    }
}

/// A screen that embeds a child controller's view in its own.
final class Dashboard: UIViewController {
    let child = Widget()

    override func viewDidLoad() {
        view.addSubview(UILabel(text: "Dashboard"))
        addChild(child)
        view.addSubview(child.view)
    }
}

/// The embedded child: a button of its own.
final class Widget: UIViewController {
    let refresh = UIButton(title: "Refresh")
    var refreshed = 0

    override func viewDidLoad() {
        view.addSubview(refresh)
        refresh.addTarget(self, action: "onRefresh:", for: .touchUpInside) { w, _ in w.refreshed += 1 }
    }
}

@Suite struct ChildControllerTests {
    @Test func childControllersAreTheirOwnPagesAndPathRoots() throws {
        let rig = HookRig()
        let (window, dashboard) = rig.show { Dashboard() }
        #expect(rig.recorder.summary == ["page_enter Dashboard", "page_enter Widget"])
        dashboard.child.refresh.tap()
        #expect(dashboard.child.refreshed == 1)
        let click = try #require(rig.recorder.events.last)
        #expect(click.name == "Widget#Widget#onRefresh:")
        #expect(click.path == "Widget-UIView-UIButton&0-0-0")
        #expect(click.page == "Widget")
        // The tree still links the child under the parent's view.
        #expect(dashboard.child.parentNode === dashboard.view)
        #expect(dashboard.view.childNodes.last === dashboard.child)
        rig.clock.advance(milliseconds: 5)
        dashboard.performDisappear()
        #expect(Array(rig.recorder.summary.suffix(2)) == ["page_leave Widget", "page_leave Dashboard"])
        #expect(rig.recorder.events.suffix(2).map(\.duration) == [5, 5])
        _ = window
    }
}
