import ATLPWire

/// One live connection of the shipper and the batches sent on it.
final class ShipperLink {
    let connection: ATLPConnection
    let maxFrame: Int
    var inFlight = InFlightBatches()
    var lastProgress = ContinuousClock.now

    init(_ configuration: EventShipperConfiguration) throws(TransportError) {
        connection = try ATLPConnection(to: configuration.address, timeout: configuration.connectTimeout)
        let welcome = try connection.hello(configuration.hello)
        maxFrame = min(welcome.maxFrame, configuration.maxFrame)
        // Short reads let the thread notice close(); ackTimeout is counted across them.
        try connection.setReceiveTimeout(.milliseconds(200))
    }
}
