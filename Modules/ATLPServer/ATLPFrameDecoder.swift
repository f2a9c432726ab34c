import ATLPWire
import ConnectionLoop
import EventModel
import SystemCalls

/// Bytes in: each connection's frame decoder, frames cut up to `maxPendingRequests` queued (the
/// rest waits in the decoder until the queue drains, also after the end of the stream), and large
/// `SNAPSHOT` frames admitted within the memory budget.
final class ATLPFrameDecoder: ConnectionDecoder {
    typealias P = ATLPConnections
    let context: ATLPContext

    init(_ context: ATLPContext) { self.context = context }

    func makeState(peer: SocketAddress, now: ContinuousClock.Instant) -> ATLPConnectionState {
        ATLPConnectionState(peer: peer, maxFrame: context.configuration.maxFrame, maxSnapshotFrame: context.configuration.maxSnapshotFrame)
    }

    /// Room for one whole frame beyond what is buffered.
    func hasRoom(_ c: ServerConnection) -> Bool {
        c.state.decoder.bufferedCount <= c.state.decoder.frameLimit + 16
    }

    func received(_ bytes: UnsafeRawBufferPointer, on c: ServerConnection, loop: ATLPLoop) {
        c.state.decoder.append(bytes)
    }

    /// A plain ATLP client on a TLS port (its first byte is a length digit, where TLS starts with
    /// a handshake record, 0x16), or a TLS client on a plain port: says so in the context.log and to the
    /// client, in plain text (all it can read), then closes. True when it did.
    func refusesFirstByte(_ firstByte: UInt8, on c: ServerConnection, loop: ATLPLoop) -> Bool {
        let error: ATLPError
        if c.channel != nil, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(firstByte) {
            c.channel = nil
            error = ATLPError(
                .tlsRequired,
                "this collector port expects TLS; connect with TLS (autotrack-agent and rules publish: add --tls, "
                    + "and --tls-ca FILE when its certificate is not from a system authority)")
            context.log?("plain ATLP from \(LogText.escaped(c.state.peer)) on this TLS port: told it to connect with TLS (--tls), closed")
        } else if c.channel == nil, loop.security == nil, firstByte == 0x16 {
            error = ATLPError(
                .badFrame, "this collector port speaks plain ATLP, not TLS; connect without --tls, or to the collector's TLS port")
            context.log?("a TLS handshake from \(LogText.escaped(c.state.peer)) on this plain port: told it to connect without TLS, closed")
        } else {
            return false
        }
        context.answerAndFinish(c, error, loop)
        return true
    }

    /// Cuts buffered bytes into requests, up to `maxPendingRequests` queued: the rest waits in
    /// the decoder until the queue drains (also after the end of the stream).
    func extractFrames(_ c: ServerConnection, _ loop: ATLPLoop) {
        var frames = 0
        while c.takesRequests, c.pendingCount < context.configuration.maxPendingRequests {
            do {
                guard let payload = try c.state.decoder.next() else {
                    if c.state.decoder.waitingLargeFrame != nil && admitLargeFrame(c, loop) { continue }
                    break
                }
                c.enqueue(.payload(payload))
                frames += 1
            } catch {
                c.enqueue(.framingError(error))
                c.finish()
                c.answersBuffered = false
            }
        }
        if frames > 0 {
            let pending = c.pendingCount
            context.count {
                $0.framesReceived += frames
                $0.peakPendingRequests = max($0.peakPendingRequests, pending)
            }
        }
    }

    /// Admits `c`'s waiting large `SNAPSHOT` frame once its `HELLO` is accepted and the memory
    /// budget has room (one frame always fits); refuses it when no `HELLO` is on its way.
    private func admitLargeFrame(_ c: ServerConnection, _ loop: ATLPLoop) -> Bool {
        guard let length = c.state.decoder.waitingLargeFrame else { return false }
        guard c.state.client != nil else {
            if !c.answering && c.pendingCount == 0 {
                c.enqueue(
                    .framingError(
                        ATLPError(
                            .frameTooLarge,
                            "a SNAPSHOT of \(length) bytes before a HELLO was accepted; frames above "
                                + "\(context.configuration.maxFrame) bytes are taken only after a HELLO")))
                c.finish()
                c.answersBuffered = false
            }
            return false
        }
        let copies = ATLPServerConfiguration.largeFrameCopies
        guard context.largeFrameBytes == 0 || (context.largeFrameBytes + length) * copies <= context.configuration.snapshotMemoryBudget else {
            if context.waitingForMemory.insert(c.id).inserted { context.count { $0.largeFrameWaits += 1 } }
            return false
        }
        context.waitingForMemory.remove(c.id)
        context.largeFrameBytes += length
        let held = context.largeFrameBytes
        context.count {
            $0.largeFramesAdmitted += 1
            $0.peakLargeFrameBytes = max($0.peakLargeFrameBytes, held)
        }
        c.state.largeFrameBytes += length
        c.state.decoder.admitLargeFrame()
        loop.touch(c)
        return true
    }

}
