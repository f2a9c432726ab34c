/// How a client command reaches its collectors: every `--to HOST:PORT` in order (the first is
/// used, the others are failover, docs/collector.md "Several collectors"), and `--tls` /
/// `--tls-ca FILE` (docs/security.md "TLS"). Parsed here once for every client command:
/// `send`, `demo`, `replay`, `run` and `rules publish`.
public struct CollectorOptions: Sendable, Hashable {
    /// The collectors, first one first; empty when no `--to` was given.
    public var addresses: [HostPort]
    /// nil for plain TCP; else TLS, trusting `authorityFile` (a PEM file), or the system's
    /// authorities when that is nil.
    public var tls: ClientTLS?

    /// TLS as a client asks for it.
    public struct ClientTLS: Sendable, Hashable {
        /// The PEM file of the authority to trust; nil trusts the system's.
        public var authorityFile: String?
        public init(authorityFile: String?) { self.authorityFile = authorityFile }
    }

    public init(addresses: [HostPort], tls: ClientTLS? = nil) {
        self.addresses = addresses
        self.tls = tls
    }

    /// `--to HOST:PORT`, repeatable: the collectors in order.
    public static let to = Option.repeatable(
        "to", "HOST:PORT",
        help: "the collector (e.g. 127.0.0.1:7070; [::1]:7070 for IPv6); more are failover, tried in order when one does not answer",
        missing: "missing required option --to")
    /// `--tls`: TLS, trusting the system's authorities.
    public static let tls = Option.flag(
        "tls", help: "with --to: speak TLS; the collector's certificate must name the --to address and come from an authority the system trusts...")
    /// `--tls-ca FILE`: TLS, trusting this authority.
    public static let authority = Option.single("tls-ca", "FILE", help: "...or from this one (PEM); implies --tls")

    /// The group as a command takes it; `requiringAddress` when it cannot run without `--to`.
    public static func group(requiringAddress: Bool = false, to: Option = to) -> OptionGroup {
        OptionGroup("COLLECTOR OPTIONS", [requiringAddress ? to.required() : to, tls, authority])
    }

    /// Takes `--to` (repeatable), `--tls` and `--tls-ca FILE` (which implies `--tls`) from `arguments`.
    /// TLS without any `--to` is a usage error, since there is nothing to connect to.
    public init(arguments: inout Arguments) throws(UsageError) {
        addresses = try arguments.values(Self.to).map { (text) throws(UsageError) -> HostPort in try HostPort(text) }
        let authority = try arguments.value(Self.authority)
        if arguments.isSet(Self.tls) || authority != nil {
            if authority?.isEmpty == true { throw UsageError("--tls-ca needs the path of a PEM file") }
            tls = ClientTLS(authorityFile: authority)
        } else {
            tls = nil
        }
        if tls != nil, addresses.isEmpty {
            throw UsageError("--tls and --tls-ca secure the connection to --to HOST:PORT; give --to as well")
        }
    }

    /// A usage error naming the option when no `--to` was given (commands that cannot run without one).
    public func requireAddress() throws(UsageError) {
        guard !addresses.isEmpty else { throw Self.to.missingError }
    }

    /// The addresses as the command line gave them, for messages: `127.0.0.1:7070, 127.0.0.1:7071`.
    public var addressList: String { addresses.map(\.description).joined(separator: ", ") }

    /// These options as a command line gives them, to print a command to run:
    /// `--to 127.0.0.1:7070 --to 127.0.0.1:7071 --tls-ca ca.pem`.
    public var commandLine: String {
        var words = addresses.map { "--to \($0)" }
        if let tls { words.append(tls.authorityFile.map { "--tls-ca \($0)" } ?? "--tls") }
        return words.joined(separator: " ")
    }
}
