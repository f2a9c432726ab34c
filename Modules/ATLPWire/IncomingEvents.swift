public import EventModel

/// An `EVENTS` request as the server reads it (`ATLPRequest.events(payload:)`): the events read
/// straight from the frame's bytes and validated as they were read. A handler answers it with
/// `ATLPHandler.handle(events:session:)`; `request` is the same request in its generic form.
public struct IncomingEvents: Sendable, Hashable {
    /// The client's batch label, a string or integer, echoed in `ACK`.
    public var batch: JSONValue
    public var events: EventList
    /// The client's clock in ms when it sent the frame, when given.
    public var sentAt: Int64?

    public init(batch: JSONValue, events: EventList, sentAt: Int64?) {
        self.batch = batch
        self.events = events
        self.sentAt = sentAt
    }

    /// The request with its events as generic values.
    public var request: ATLPRequest { .events(batch: batch, events: events.values, sentAt: sentAt) }
}
