import EventModel
import Hooks
import Interactions
import Testing
import ViewIdentity

@Suite struct TargetActionTests {
    /// A window showing `TestController` (built inside the rig's registry).
    private func screen(_ rig: HookRig) -> (UIWindow, TestController) {
        rig.show { TestController() }
    }

    @Test func proxyReportsAndTheRealTargetStillRuns() throws {
        let rig = HookRig()
        let (window, c) = screen(rig)
        c.wireOK()
        // The proxy runs first: when it reports, the real action has not run yet.
        var logAtObserve: [String]?
        rig.recorder.onObserve = { i in if i.kind == .click { logAtObserve = c.log } }
        c.okButton.tap()

        #expect(c.log == ["onOK OK"])
        #expect(logAtObserve == [])
        let clicks = rig.recorder.events.filter { $0.type == .click }
        try #require(clicks.count == 1)
        let e = clicks[0]
        #expect(e.name == "TestController#TestController#onOK:")
        #expect(e.page == "TestController")
        #expect(e.path == "TestController-UIView-UIButton&0-0-0")
        #expect(e.viewId == ViewID(canonical: "TestController-UIView-UIButton&0-0-0").hex)
        #expect(e.props["title"] == .string("OK"))
        #expect(e.props["controlEvents"] == .string("touchUpInside"))
        #expect(e.ts == 1_000_000)
        #expect(c.okButton.trackingProxyCount == 1)
        #expect(c.okButton.allTargets.count == 1)
        _ = window
    }

    @Test func eventCodeNamesTheTargetTypeNotTheController() throws {
        let rig = HookRig()
        let (window, c) = screen(rig)
        final class Handler { var count = 0 }
        let handler = Handler()
        rig.build {
            c.cancelButton.addTarget(handler, action: "onCancel:", for: .touchUpInside) { h, _ in h.count += 1 }
        }
        c.cancelButton.tap()
        #expect(handler.count == 1)
        // Handler is nested in this test, so its name keeps the enclosing scopes after the module prefix.
        let name = try #require(rig.recorder.events.last?.name)
        #expect(name.hasPrefix("TestController#"))
        #expect(name.hasSuffix("Handler#onCancel:"))
        // The second button: index 1 among UIButtons (the label before them does not count).
        #expect(rig.recorder.events.last?.path == "TestController-UIView-UIButton&0-0-1")
        _ = window
    }

    @Test func removingTheTargetRemovesTheProxy() {
        let rig = HookRig()
        let (window, c) = screen(rig)
        c.wireOK()
        #expect(c.okButton.trackingProxyCount == 1)
        c.okButton.removeTarget(c, action: "onOK:", for: .touchUpInside)
        #expect(c.okButton.trackingProxyCount == 0)
        #expect(c.okButton.allTargets.isEmpty)
        c.okButton.tap()
        #expect(c.log.isEmpty)
        #expect(rig.recorder.events.allSatisfy { $0.type != .click })
        _ = window
    }

    @Test func removingOneOfTwoActionsKeepsTheOtherProxy() {
        let rig = HookRig()
        let (window, c) = screen(rig)
        c.wireOK()
        do {
            c.okButton.addTarget(c, action: "onOKDown:", for: .touchDown) { target, _ in target.log.append("down") }
        }
        #expect(c.okButton.trackingProxyCount == 2)
        c.okButton.removeTarget(c, action: "onOKDown:")
        #expect(c.okButton.trackingProxyCount == 1)
        c.okButton.tap()
        #expect(c.log == ["onOK OK"])
        #expect(rig.recorder.summary.filter { $0.hasPrefix("click") } == ["click TestController#TestController#onOK:"])
        _ = window
    }

    @Test func targetsAddedBeforeTrackingStartedFallBackOnSendActionWithoutDoubleReports() throws {
        let rig = HookRig(start: false)
        let (window, c) = screen(rig)
        c.wireOK()
        try rig.hooks.start()
        #expect(c.okButton.trackingProxyCount == 0)
        c.okButton.tap()
        c.okButton.tap()
        #expect(c.log == ["onOK OK", "onOK OK"])
        // No proxy is placed: the sendAction:to:forEvent: advice reports each send, once.
        #expect(c.okButton.trackingProxyCount == 0)
        #expect(
            rig.recorder.summary.filter { $0.hasPrefix("click") }
                == ["click TestController#TestController#onOK:", "click TestController#TestController#onOK:"])
        // A target added while running has its proxy at once; the advice sees the proxy and stays
        // silent: one report per tap, not two.
        rig.build {
            c.cancelButton.addTarget(c, action: "onCancel:", for: .touchUpInside) { target, _ in target.log.append("cancel") }
        }
        #expect(c.cancelButton.trackingProxyCount == 1)
        c.cancelButton.tap()
        #expect(rig.recorder.summary.filter { $0.hasPrefix("click") }.count == 3)
        rig.hooks.stop()
        #expect(rig.aspects.count == 0)
        c.cancelButton.tap()
        c.okButton.tap()
        #expect(c.log == ["onOK OK", "onOK OK", "cancel", "cancel", "onOK OK"])
        #expect(rig.recorder.events.filter { $0.type == .click }.count == 3)
        _ = window
    }

    @Test func addingTheSameTargetAndActionTwiceIsOneRegistration() {
        let rig = HookRig()
        let (window, c) = screen(rig)
        c.wireOK()
        c.wireOK()
        #expect(c.okButton.registeredActions.count == 1)
        #expect(c.okButton.trackingProxyCount == 1)
        c.okButton.tap()
        #expect(c.log == ["onOK OK"])
        #expect(rig.recorder.events.filter { $0.type == .click }.count == 1)
        _ = window
    }

    @Test func removingATargetForSomeEventsKeepsItsOtherEvents() {
        let rig = HookRig()
        let (window, c) = screen(rig)
        rig.build {
            c.okButton.addTarget(c, action: "onOK:", for: [.touchDown, .touchUpInside]) { t, s in t.onOK(s) }
        }
        c.okButton.tap()
        #expect(c.log.count == 2)
        c.okButton.removeTarget(c, action: "onOK:", for: .touchDown)
        #expect(c.okButton.actions(forTarget: c, forControlEvent: .touchUpInside) == ["onOK:"])
        #expect(c.okButton.actions(forTarget: c, forControlEvent: .touchDown).isEmpty)
        c.okButton.tap()
        #expect(c.log.count == 3)
        #expect(rig.recorder.events.filter { $0.type == .click }.map { $0.props["controlEvents"] } == [
            .string("touchDown"), .string("touchUpInside"), .string("touchUpInside"),
        ])
        _ = window
    }

    @Test func aNilTargetOrNilActionRemovesEveryMatchingRegistration() {
        let rig = HookRig()
        let (window, c) = screen(rig)
        let other = Log()
        rig.build {
            c.okButton.addTarget(c, action: "onOK:", for: .touchUpInside) { t, s in t.onOK(s) }
            c.okButton.addTarget(c, action: "onOther:", for: .touchUpInside) { t, _ in t.log.append("other") }
            c.okButton.addTarget(other, action: "onOK:", for: .touchUpInside) { l, _ in l.count += 1 }
        }
        c.okButton.removeTarget(nil, action: "onOK:")
        #expect(c.okButton.registeredActions.map(\.action) == ["onOther:"])
        c.okButton.removeTarget(c, action: nil)
        #expect(c.okButton.registeredActions.isEmpty)
        c.okButton.tap()
        #expect(c.log.isEmpty)
        #expect(other.count == 0)
        _ = window
    }

    @Test func privateClassesAreNamedWithoutTheirContextAddress() throws {
        let rig = HookRig()
        let (window, c) = screen(rig)
        let handler = SecretHandler()
        let button = rig.build { () -> SecretButton in
            let b = SecretButton(title: "Secret")
            c.view.addSubview(b)
            b.addTarget(handler, action: "onSecret:", for: .touchUpInside) { h, _ in h.count += 1 }
            return b
        }
        #expect(button.typeName.contains("(unknown context at $"))
        button.tap()
        #expect(handler.count == 1)
        let e = try #require(rig.recorder.events.last)
        #expect(e.name == "TestController#SecretHandler#onSecret:")
        #expect(e.path == "TestController-UIView-SecretButton&0-0-0")
        _ = window
    }

    @Test func aDisabledControlSendsNothing() {
        let rig = HookRig()
        let (window, c) = screen(rig)
        c.wireOK()
        c.okButton.isEnabled = false
        c.okButton.tap()
        #expect(c.log.isEmpty)
        #expect(rig.recorder.events.allSatisfy { $0.type != .click })
        _ = window
    }

    @Test func aControlOutsideAnyControllerIsNamedByItsWindow() throws {
        let rig = HookRig()
        let (window, button, log) = rig.build { () -> (UIWindow, UIButton, Log) in
            let window = UIWindow()
            let button = UIButton(title: "Loose")
            window.addSubview(button)
            let log = Log()
            button.addTarget(log, action: "onLoose:", for: .touchUpInside) { l, _ in l.count += 1 }
            return (window, button, log)
        }
        button.tap()
        #expect(log.count == 1)
        let e = try #require(rig.recorder.events.first)
        #expect(e.name.hasPrefix("UIWindow#"))
        #expect(e.path == "UIWindow-UIButton&0-0")
        #expect(e.page == nil)
        _ = window
    }
}

final class Log {
    var count = 0
}

/// A private control and a private target: their printed names hold a launch-dependent address.
private final class SecretButton: UIButton {}
private final class SecretHandler { var count = 0 }
