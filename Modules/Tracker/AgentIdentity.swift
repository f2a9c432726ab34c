public import EventModel
import Foundation
import SystemCalls

/// Who the events are about, as the agent keeps it in `identity.json` of its data directory:
/// an anonymous `device` id drawn once, the signed-in `user` the app set, and the consent switch.
///
/// `{"device":"d-3f9c…","user":"u-42","consent":true}`; a missing or unreadable file is a first
/// start (a new device id, no user, consent given).
public struct AgentIdentity: Sendable, Hashable {
    /// `d-` and 32 random hexadecimal digits.
    public var device: String
    public var user: String?
    /// False once the user opted out: nothing is captured until it is true again.
    public var consent: Bool

    public init(device: String = AgentIdentity.newDeviceID(), user: String? = nil, consent: Bool = true) {
        self.device = device
        self.user = user
        self.consent = consent
    }

    /// The device id this agent names to the collector outside its events (a `SNAPSHOT`'s
    /// `device`, docs/wire.md): nil while the user has not consented.
    public var namedDevice: String? { consent ? device : nil }

    public static func newDeviceID() -> String {
        var rng = SystemRandomNumberGenerator()
        func hex(_ n: UInt64) -> String {
            let s = String(n, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return "d-" + hex(rng.next()) + hex(rng.next())
    }

    public var json: JSONValue {
        var o = JSONObject()
        o["device"] = .string(device)
        if let user { o["user"] = .string(user) }
        o["consent"] = .bool(consent)
        return .object(o)
    }

    /// Reads the file's form; nil when it is not one (a broken file counts as a first start).
    public init?(json: JSONValue) {
        guard let device = json["device"]?.stringValue, !device.isEmpty, device.utf8.count <= 128 else { return nil }
        self.device = device
        user = json["user"]?.stringValue
        if case .bool(let b)? = json["consent"] { consent = b } else { consent = true }
    }

    static let fileName = "identity.json"

    /// The identity kept in `directory`, or a new one (written there) on a first start.
    /// Reads a small file on the caller's thread, once, when a tracker is made.
    static func load(from directory: String?, writer: IdentityWriter) -> AgentIdentity {
        if let directory, let bytes = AgentDataDirectory.read(fileName, in: directory),
            let json = try? JSONValue.parse(bytes), let identity = AgentIdentity(json: json)
        {
            return identity
        }
        let identity = AgentIdentity()
        writer.save(identity)
        return identity
    }
}

/// Writes identity changes to the data directory on a thread of its own (a `WorkQueue`), in order, so
/// `identify`, `reset` and the consent switch return at once on the app's thread.
final class IdentityWriter: Sendable {
    let directory: String?
    private let queue = WorkQueue(threadName: "autotrack-ident")

    init(directory: String?) { self.directory = directory }

    func save(_ identity: AgentIdentity) {
        guard let directory else { return }
        let bytes = Array(identity.json.jsonText.utf8)
        queue.async {
            do {
                try AgentDataDirectory.write(bytes, to: AgentIdentity.fileName, in: directory)
            } catch {
                AgentDiagnostics.write("cannot save the agent identity in \(directory) (\(error)); check that the data directory is writable")
            }
        }
    }

    /// Waits until every save queued so far is on disk (tests, and before the process exits).
    func wait() { queue.sync(timeout: .seconds(10)) }
}

/// One line on standard error for what the agent cannot do but the app must not notice.
enum AgentDiagnostics {
    static func write(_ line: String) {
        FileHandle.standardError.write(Data(("autotrack: " + line + "\n").utf8))
    }
}
