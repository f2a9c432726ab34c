import ATLPTLS
import SecureChannel
import SystemCalls

extension CollectorOptions {
    /// The socket addresses of every `--to`, in order.
    public var socketAddresses: [SocketAddress] { addresses.map { SocketAddress(host: $0.host, port: $0.port) } }

    /// The channel factory a client's connections use: nil for plain TCP, else TLS as asked.
    /// Throws when the authority file cannot be loaded.
    public func channels() throws(SecureChannelError) -> SecureChannelFactory? {
        guard let tls else { return nil }
        return try TLSContext.client(trusting: tls.authorityFile).channels
    }

    /// The collectors to connect to and how, or nil after printing, prefixed by `command`, why TLS
    /// cannot be set up and how to fix it.
    public func connections(command: String, io: any OutputStreams) -> CollectorConnections? {
        do throws(SecureChannelError) {
            return CollectorConnections(addresses: socketAddresses, security: try channels())
        } catch {
            let fix = tls?.authorityFile.map { "check --tls-ca \($0) (a PEM file of the collector's certificate authority)" }
                ?? "check the system's certificate authorities, or give --tls-ca FILE"
            io.printError("\(command): cannot set up TLS: \(error); \(fix)")
            return nil
        }
    }
}

/// Where a client command connects, and over what: `CollectorOptions` made ready.
public struct CollectorConnections: Sendable {
    /// The collectors, first one first (the others are failover).
    public var addresses: [SocketAddress]
    /// nil for plain TCP; else each connection's TLS channel.
    public var security: SecureChannelFactory?
}
