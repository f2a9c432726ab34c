import EventModel
import Hooks
import Interactions
import KVCConfig
import Reporters
import Testing
import Tracker
import ViewIdentity

/// A view with a delegate-style method that is not a target action, made hookable.
final class LoginView: UIView {
    var errors: [String] = []

    override class var hookPoints: [AnyHookPoint] { super.hookPoints + [HookPoint.handleError.erased] }
    override class var actionMethods: [ActionName] { ["onLogin:"] }

    func loginView(_ view: LoginView, handleError message: String) {
        hookable(.handleError, (view, message)) { errors.append(message) }
    }
}

extension HookPoint where Instance == LoginView, Arguments == (LoginView, String), Result == Void {
    static var handleError: Self { Self("loginView:handleError:") }
}

@Suite struct MethodTrackingTests {
    private func tracker(labels: String, events: String = "{}") throws -> (Tracker, ReportingSystem, MemoryReporter) {
        var plan = try ConfigLoader.parse(text: labels, file: "labels.json")
        try plan.merge(try ConfigLoader.parse(text: events, file: "events.json"))
        let memory = MemoryReporter()
        let reporting = ReportingSystem([memory], label: "method-tracking")
        var settings = TrackerSettings()
        settings.clock = ManualInteractionClock(wallMilliseconds: 5_000)
        let tracker = Tracker(
            plan: plan, app: try TrackedApp(key: "shop", version: "1.0"), reporting: reporting, session: "m", settings: settings)
        return (tracker, reporting, memory)
    }

    /// A registry that knows `LoginView`, and a hook system reporting to `tracker` started in it.
    private func started(_ tracker: Tracker) throws -> (AspectRegistry, HookSystem) {
        let aspects = AspectRegistry(diagnostics: { _ in })
        aspects.declare(LoginView.self)
        let hooks = HookSystem(observer: tracker, aspects: aspects, clock: ManualInteractionClock())
        try hooks.start()
        return (aspects, hooks)
    }

    private static let loginLabels = """
        {"trackedEvents": [{"class": "LoginView", "selector": "loginView:handleError:", "label": "Login failed"},
                           {"class": "LoginView", "selector": "onLogin:", "label": "Login"}]}
        """

    @Test func aTrackedMethodThatIsNotATargetActionIsHookedWhenThePlanLoadsAndReportsACustomEventWithItsLabel() throws {
        let (tracker, reporting, memory) = try tracker(
            labels: Self.loginLabels, events: #"{"LoginView": {"ControlEventIDs": {"loginView:handleError:": "LOGIN_ERROR"}}}"#)
        let (aspects, hooks) = try started(tracker)  // no call to hook the method: starting to observe hooks it
        let view = AspectRegistry.$current.withValue(aspects) { LoginView() }
        view.loginView(view, handleError: "wrong password")
        #expect(view.errors == ["wrong password"])
        #expect(reporting.flush(timeout: .seconds(10)))
        let e = try #require(memory.events.first)
        #expect(memory.events.count == 1)
        #expect(e.type == .custom)
        #expect(e.name == "LOGIN_ERROR")
        #expect(e.props["code"] == .string("LoginView#LoginView#loginView:handleError:"))
        #expect(e.props["label"] == .string("Login failed"))
        #expect(e.ts == 5_000)
        #expect(e.session == "m")
        #expect(tracker.methodProblems.isEmpty)
        // onLogin: is a target action, tracked by the proxies: calling it as a method reports nothing.
        hooks.stop()
        view.loginView(view, handleError: "again")
        #expect(reporting.flush(timeout: .seconds(10)))
        #expect(memory.events.count == 1)
        #expect(aspects.count == 0)
    }

    @Test func aPlanSwapThatRemovesATrackedMethodStopsReportingItAndNoSwapReportsACallTwice() throws {
        let (tracker, reporting, memory) = try tracker(labels: Self.loginLabels)
        let (aspects, hooks) = try started(tracker)
        let view = AspectRegistry.$current.withValue(aspects) { LoginView() }
        func labels(after message: String) -> [String] {
            view.loginView(view, handleError: message)
            _ = reporting.flush(timeout: .seconds(10))
            return memory.events.map { $0.props["label"]?.stringValue ?? "" }
        }
        #expect(labels(after: "1") == ["Login failed"])
        // Remote rules swapped in leave the labels as they are: still one report per call.
        #expect(tracker.apply(RemoteRules(etag: "e1", rules: [])))
        #expect(labels(after: "2") == ["Login failed", "Login failed"])
        // The app's plan reloaded without the entry: the method is unhooked.
        tracker.load(try ConfigLoader.parse(text: #"{"trackedEvents": []}"#, file: "labels.json"))
        #expect(labels(after: "3") == ["Login failed", "Login failed"])
        // And back, with another label: hooked once again, named as the new plan says.
        tracker.load(
            try ConfigLoader.parse(
                text: #"{"trackedEvents": [{"class": "LoginView", "selector": "loginView:handleError:", "label": "Sign-in error"}]}"#,
                file: "labels.json"))
        tracker.load(tracker.localPlan)
        #expect(labels(after: "4") == ["Login failed", "Login failed", "Sign-in error"])
        #expect(tracker.rulesEtag == "e1")  // the remote rules stay merged over the reloaded plan
        hooks.stop()
    }

    @Test func aTrackedSelectorTheClassDoesNotHaveIsAPlanErrorReportedOnce() throws {
        let (tracker, reporting, memory) = try tracker(
            labels: #"{"trackedEvents": [{"class": "LoginView", "selector": "loginView:handleErorr:", "label": "typo"}]}"#)
        let (aspects, hooks) = try started(tracker)
        tracker.load(tracker.localPlan)  // the same error again is not reported again
        #expect(reporting.flush(timeout: .seconds(10)))
        let e = try #require(memory.events.first)
        #expect(memory.events.count == 1)
        #expect(e.type == .kvcError)
        #expect(e.name == "method_rejected")
        #expect(e.props["class"] == .string("LoginView"))
        #expect(e.props["selector"] == .string("loginView:handleErorr:"))
        #expect(e.props["label"] == .string("typo"))
        #expect(e.props["problem"]?.stringValue?.contains("labels.json") == true)
        #expect(tracker.statistics.rejectedMethods == 1)
        let problem = try #require(tracker.methodProblems.first)
        #expect(tracker.methodProblems.count == 1)
        #expect(problem.code == .unknownMethod)
        #expect(problem.location.file == "labels.json")
        #expect(problem.description.contains("loginView:handleErorr:"))
        let view = AspectRegistry.$current.withValue(aspects) { LoginView() }
        view.loginView(view, handleError: "not tracked")
        #expect(reporting.flush(timeout: .seconds(10)))
        #expect(memory.events.count == 1)
        // Fixed by a new plan: the problem is gone.
        tracker.load(TrackingPlan())
        #expect(tracker.methodProblems.isEmpty)
        hooks.stop()
    }
}
