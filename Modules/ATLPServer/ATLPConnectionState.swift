import ATLPWire
import ConnectionLoop
import SystemCalls

/// A connection of the ATLP server, as its I/O thread sees it.
typealias ServerConnection = Connection<ATLPConnections>

/// What the ATLP server keeps per connection, beside what the connection loop keeps.
struct ATLPConnectionState {
    /// The peer's address as text, for the handler and the log.
    let peer: String
    /// The accepted `HELLO`; nil until then.
    var client: ConnectedClient?
    var decoder: FrameDecoder
    /// Its `HELLO` was held back at least once (its address failed authentication recently).
    var throttled = false
    /// Since when a frame has been in progress while the server waited on the client (the
    /// minimum-rate clock); nil when no partial frame is buffered.
    var partialSince: ContinuousClock.Instant?
    /// Bytes of admitted `SNAPSHOT` frames above `maxFrame` this connection holds (read or being
    /// answered), counted in the server's snapshot memory budget.
    var largeFrameBytes = 0
    /// The size of the large frame being answered now (0: the item being answered is not one).
    var answeringLargeFrame = 0

    init(peer: SocketAddress, maxFrame: Int, maxSnapshotFrame: Int) {
        self.peer = peer.description
        self.decoder = FrameDecoder(maxFrame: maxFrame, maxSnapshotFrame: maxSnapshotFrame)
    }
}
