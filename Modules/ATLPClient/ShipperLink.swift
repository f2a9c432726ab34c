import ATLPWire
import SystemCalls

/// One live connection of the shipper and the batches sent on it.
final class ShipperLink {
    let connection: ATLPConnection
    let maxFrame: Int
    var inFlight = InFlightBatches()
    var lastProgress = ContinuousClock.now

    var address: SocketAddress { connection.address }

    init(_ configuration: EventShipperConfiguration, to address: SocketAddress) throws(TransportError) {
        connection = try ATLPConnection(to: address, timeout: configuration.connectTimeout, security: configuration.security)
        let welcome = try connection.hello(configuration.hello)
        maxFrame = min(welcome.maxFrame, configuration.maxFrame)
        // Short reads let the thread notice close(); ackTimeout is counted across them.
        try connection.setReceiveTimeout(.milliseconds(200))
    }
}
