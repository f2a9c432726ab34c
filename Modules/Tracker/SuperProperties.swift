public import EventModel
public import Foundation
import SystemCalls

/// Props registered once and merged into every event (`TrackerSettings.superProperties`,
/// `Tracker.register(superProperties:)`); an event's own props win over them.
public enum SuperProperties {
    /// This agent's version, sent as `agentVersion`.
    public static let agentVersion = "0.12.0"

    /// The standard set, each only where known: `appVersion`, `os` and `osVersion` (uname),
    /// `locale` (`LC_ALL`, else `LC_MESSAGES`, else `LANG`, without its encoding: `en_GB`),
    /// `screen` (`1280x800`, from the toolkit), `toolkit` (`uikit-model`, `gtk4`), `agentVersion`.
    public static func standard(
        app: TrackedApp, toolkit: String?, screen: (width: Int, height: Int)? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> JSONObject {
        var o = JSONObject()
        o["appVersion"] = .string(app.version)
        if let kernel = Posix.kernel() {
            o["os"] = .string(kernel.name)
            o["osVersion"] = .string(kernel.release)
        }
        if let locale = locale(environment) { o["locale"] = .string(locale) }
        if let screen { o["screen"] = .string("\(screen.width)x\(screen.height)") }
        if let toolkit { o["toolkit"] = .string(toolkit) }
        o["agentVersion"] = .string(agentVersion)
        return o
    }

    /// `en_GB.UTF-8` → `en_GB`; `C`/`POSIX` or nothing set → nil.
    static func locale(_ environment: [String: String]) -> String? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let v = environment[name], !v.isEmpty else { continue }
            let base = String(v.prefix { $0 != "." && $0 != "@" })
            return base == "C" || base == "POSIX" || base.isEmpty ? nil : base
        }
        return nil
    }

    /// `props` with every super property it lacks.
    static func merge(_ supers: JSONObject, into props: inout JSONObject) {
        for (k, v) in supers where props[k] == nil { props[k] = v }
    }
}
