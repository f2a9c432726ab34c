public import ATLPWire
public import EventModel

/// One `EVENTS` request for `ATLPConnection.sendEvents(window:next:acknowledged:)`, encoded once
/// when made: a caller may prepare its requests before it starts sending (a benchmark's clock).
public struct EventsRequest: Sendable {
    /// The batch id, echoed by its `ACK`.
    public let batch: JSONValue
    /// The whole `EVENTS` frame, as sent.
    public let frame: [UInt8]

    /// `sentAt`: this side's clock (ms since the epoch), sent when given.
    public init(batch: JSONValue, events: [JSONValue], sentAt: Int64? = nil) {
        self.batch = batch
        frame = ATLPRequest.events(batch: batch, events: events, sentAt: sentAt).frame.encoded
    }
}

extension ATLPConnection {
    /// Sends `EVENTS` batches keeping up to `window` of them unanswered on this connection, as
    /// `EventShipper` does (`EventShipperConfiguration.window`): a collector answers requests in
    /// order, so the answers are read in order, each checked to be the `ACK` of its batch.
    ///
    /// `next(n)` gives batch n (0, 1, …) when a place in the window is free, or nil when no more
    /// go (it may sleep first, to pace a load); the batches then in flight are still answered.
    /// `acknowledged(n, ack)` gets each batch's `ACK`, in order. With `window` 1 each batch waits
    /// for the one before to be answered. An `ERR` answer throws `.remote`; an answer that is not
    /// the `ACK` of the oldest batch in flight throws `.protocolViolation`.
    public func sendEvents(
        window: Int, next: (Int) -> EventsRequest?, acknowledged: (Int, BatchAck) -> Void
    ) throws(TransportError) {
        precondition(window >= 1, "a window holds at least one batch")
        var inFlight: [JSONValue] = []  // batch ids sent and not answered, oldest first
        var answered = 0
        var more = true
        while more || !inFlight.isEmpty {
            while more, inFlight.count < window {
                guard let request = next(answered + inFlight.count) else {
                    more = false
                    break
                }
                try sendBytes(request.frame)
                inFlight.append(request.batch)
            }
            guard let batch = inFlight.first else { break }
            let reply = try receive()
            if reply.verb == "ERR" { throw .remote(ATLPError(errFrame: reply), from: address) }
            guard let ack = BatchAck(reply), ack.batch == batch else {
                throw TransportError(
                    .protocolViolation,
                    "expected the ACK of batch \(batch.jsonText) (the oldest of \(inFlight.count) in flight) from \(address), got \(reply.description.prefix(200))")
            }
            inFlight.removeFirst()
            acknowledged(answered, ack)
            answered += 1
        }
    }
}
