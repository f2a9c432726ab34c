public import EventModel
public import Interactions
import SystemCalls

/// How a tracker behaves beyond its plan: time limits, where it keeps its state, what it adds to
/// every event. A value, so an app, a preload (`AUTOTRACK_*` variables, `fromEnvironment`) or a
/// command (`demo --config-refresh`) can build one and hand it to `Tracker.init`.
///
/// Every time rule (sessions, debounce, rage clicks, refresh) reads `clock`, so tests inject a
/// `ManualInteractionClock` and get exact results without sleeping.
public struct TrackerSettings: Sendable {
    /// How often the remote configuration is asked for (`CONFIG`); also asked at start and on
    /// return to the foreground. Default 60 s.
    public var configRefresh: Duration = .seconds(60)
    /// A session ends after this long without an interaction. Default 30 min.
    public var sessionTimeout: Duration = .seconds(30 * 60)
    /// A click on the same view within this long of the last counted one is not counted again. Default 100 ms.
    public var debounce: Duration = .milliseconds(100)
    /// This many clicks on one view within `rageWindow` emit a `rage_click` event. Default 3 in 1 s.
    public var rageClicks: Int = 3
    public var rageWindow: Duration = .seconds(1)
    /// Where the device id, consent and the last good remote rules are kept; nil keeps nothing
    /// (a fresh device id per tracker, nothing cached). `AgentDataDirectory.default(appKey:)` is the
    /// documented default an app should pass.
    public var dataDirectory: String?
    /// Props merged into every event (the event's own props win): `SuperProperties.standard(...)`
    /// plus the app's own, registered once here or later with `Tracker.register(superProperties:)`.
    public var superProperties: JSONObject = JSONObject()
    /// The clock of every time rule and of `track(name:props:)` timestamps.
    public var clock: any InteractionClock = SystemInteractionClock()

    /// Debug mode (docs/agent.md "Debug mode"): receives one line (no newline) per interaction
    /// with the rules that matched or the nearest rule; nil (the default) is off.
    public var debugOutput: (@Sendable (String) -> Void)?

    public init() {}

    /// The settings with the values of `AUTOTRACK_CONFIG_REFRESH`, `AUTOTRACK_SESSION_TIMEOUT`
    /// (seconds, > 0), `AUTOTRACK_DATA_DIR` and `AUTOTRACK_DEBUG=1` (debug mode on standard error) applied where set; a malformed value is an error naming it.
    public func applying(environment: [String: String]) throws(TrackerSettingsError) -> TrackerSettings {
        var s = self
        func seconds(_ name: String) throws(TrackerSettingsError) -> Duration? {
            guard let text = environment[name] else { return nil }
            guard let v = Double(text), v.isFinite, v > 0, v <= 86_400 * 365 else {
                throw TrackerSettingsError(variable: name, value: text)
            }
            return .milliseconds(Int64((v * 1000).rounded()))
        }
        if let d = try seconds("AUTOTRACK_CONFIG_REFRESH") { s.configRefresh = d }
        if let d = try seconds("AUTOTRACK_SESSION_TIMEOUT") { s.sessionTimeout = d }
        if let dir = environment["AUTOTRACK_DATA_DIR"], !dir.isEmpty { s.dataDirectory = dir }
        if environment["AUTOTRACK_DEBUG"] == "1" { s.debugOutput = { Posix.writeToStandardError($0 + "\n") } }
        return s
    }
}

/// An `AUTOTRACK_*` variable whose value cannot be used.
public struct TrackerSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public var variable: String
    public var value: String

    public init(variable: String, value: String) {
        self.variable = variable
        self.value = value
    }

    public var description: String {
        "\(variable)=\"\(value)\" is not a number of seconds above 0 (e.g. \(variable)=60); fix or unset it"
    }
}

extension Duration {
    /// Whole milliseconds, for comparing with the clock's millisecond timestamps.
    public var wholeMilliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}
