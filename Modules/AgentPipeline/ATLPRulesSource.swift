import ATLPClient
public import ATLPWire
import EventModel
public import SecureChannel
public import SystemCalls
public import Tracker

/// The collector as a tracker's rules source: one short ATLP/1 connection per request,
/// `HELLO` then `CONFIG {"etag":E}`, answered by `RULES` (docs/wire.md §2). Blocking, with
/// `timeout` on the connect and every read; called on the `ConfigRefresher`'s thread.
///
/// With several collectors, they are asked in order until one answers, as the shipper fails
/// over (every collector on one database serves the same rules and etag). A collector that
/// answers with an error (say `unauthorized`) ends the request: the others would say the same.
public struct ATLPRulesSource: RulesSource {
    public var addresses: [SocketAddress]
    public var hello: Hello
    public var timeout: Duration
    /// The channel of each connection: nil for plain TCP, or TLS (`ATLPTLS`).
    public var security: SecureChannelFactory?

    public init(addresses: [SocketAddress], hello: Hello, timeout: Duration = .seconds(5), security: SecureChannelFactory? = nil) {
        precondition(!addresses.isEmpty, "ATLPRulesSource needs at least one collector address")
        self.addresses = addresses
        self.hello = hello
        self.timeout = timeout
        self.security = security
    }

    public init(address: SocketAddress, hello: Hello, timeout: Duration = .seconds(5), security: SecureChannelFactory? = nil) {
        self.init(addresses: [address], hello: hello, timeout: timeout, security: security)
    }

    public func fetch(etag: String?) throws -> RulesAnswer {
        try fetchWithCircleMode(etag: etag).answer
    }

    /// The answer, and circle mode: `"snapshots":true` in either form of `RULES`.
    public func fetchWithCircleMode(etag: String?) throws -> (answer: RulesAnswer, circleMode: Bool) {
        var index = 0
        while true {
            do throws(TransportError) {
                return try fetch(etag: etag, from: addresses[index])
            } catch {
                // Not reached, or the connection broke: ask the next one. An answer (ERR) is final.
                index += 1
                if error.remote != nil || index == addresses.count { throw error }
            }
        }
    }

    private func fetch(etag: String?, from address: SocketAddress) throws(TransportError) -> (answer: RulesAnswer, circleMode: Bool) {
        let connection = try ATLPConnection(to: address, hello: hello, timeout: timeout, security: security)
        defer { connection.close() }
        let update = try connection.config(etag: etag)
        switch update {
        case .unchanged(let etag, _):
            return (.unchanged(etag: etag), update.snapshots)
        case .changed(let etag, let rules, let sampleRate, _):
            return (.rules(RemoteRules(etag: etag, rules: rules, sampleRate: sampleRate)), update.snapshots)
        }
    }
}
