import EventModel
import Hooks
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
        settings.clock = ManualHookClock(wallMilliseconds: 5_000)
        let tracker = Tracker(
            plan: plan, app: try TrackedApp(key: "shop", version: "1.0"), reporting: reporting, session: "m", settings: settings)
        return (tracker, reporting, memory)
    }

    @Test func aTrackedMethodThatIsNotATargetActionReportsACustomEventWithItsLabel() throws {
        let (tracker, reporting, memory) = try tracker(
            labels: """
                {"trackedEvents": [{"class": "LoginView", "selector": "loginView:handleError:", "label": "Login failed"},
                                   {"class": "LoginView", "selector": "onLogin:", "label": "Login"}]}
                """,
            events: #"{"LoginView": {"ControlEventIDs": {"loginView:handleError:": "LOGIN_ERROR"}}}"#)
        let aspects = AspectRegistry(diagnostics: { _ in })
        aspects.declare(LoginView.self)
        let tokens = try tracker.trackMethods(in: aspects)
        #expect(tokens.count == 1)  // onLogin: is a target action: the proxies track it
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
        for t in tokens { t.remove() }
        view.loginView(view, handleError: "again")
        #expect(reporting.flush(timeout: .seconds(10)))
        #expect(memory.events.count == 1)
    }

    @Test func aTrackedSelectorTheClassDoesNotHaveIsAPlanError() throws {
        let (tracker, _, _) = try tracker(
            labels: #"{"trackedEvents": [{"class": "LoginView", "selector": "loginView:handleErorr:", "label": "typo"}]}"#)
        let aspects = AspectRegistry(diagnostics: { _ in })
        aspects.declare(LoginView.self)
        do {
            _ = try tracker.trackMethods(in: aspects)
            Issue.record("a selector the class lacks was accepted")
        } catch {
            #expect(error.problems.map(\.code) == [.unknownMethod])
            #expect(error.problems.first?.location.file == "labels.json")
            #expect(error.description.contains("loginView:handleErorr:"))
        }
        #expect(aspects.count == 0)
    }
}
