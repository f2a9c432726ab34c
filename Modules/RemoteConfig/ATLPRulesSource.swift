import ATLPClient
import ATLPWire
import EventModel
import SystemCalls
import Tracker

/// The collector as a tracker's rules source: one short ATLP/1 connection per request,
/// `HELLO` then `CONFIG {"etag":E}`, answered by `RULES` (docs/wire.md §2). Blocking, with
/// `timeout` on the connect and every read; called on the `ConfigRefresher`'s thread.
public struct ATLPRulesSource: RulesSource {
    public var address: SocketAddress
    public var hello: Hello
    public var timeout: Duration

    public init(address: SocketAddress, hello: Hello, timeout: Duration = .seconds(5)) {
        self.address = address
        self.hello = hello
        self.timeout = timeout
    }

    public func fetch(etag: String?) throws -> RulesAnswer {
        let connection = try ATLPConnection(to: address, hello: hello, timeout: timeout)
        defer { connection.close() }
        switch try connection.config(etag: etag) {
        case .unchanged(let etag):
            return .unchanged(etag: etag)
        case .changed(let etag, let rules, let sampleRate):
            return .rules(RemoteRules(etag: etag, rules: rules, sampleRate: sampleRate))
        }
    }
}
