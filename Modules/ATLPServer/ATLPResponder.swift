import ATLPWire
import ConnectionLoop
import EventModel
import SystemCalls

/// Requests to answers: one item at a time per connection handed to a worker, in order.
final class ATLPResponder: ConnectionResponder {
    typealias P = ATLPConnections
    let context: ATLPContext
    let decoder: ATLPFrameDecoder

    init(_ context: ATLPContext, decoder: ATLPFrameDecoder) {
        self.context = context
        self.decoder = decoder
    }

    /// Hands the connection's next request to a worker: one at a time, in order, and none while
    /// its unsent output is over `maxOutputBytes` (a client that does not read its answers
    /// holds at most that much of them; the flush that drains it dispatches again).
    func advance(_ c: ServerConnection, loop: ATLPLoop) {
        guard !c.answering, c.unsentCount < context.configuration.maxOutputBytes else { return }
        decoder.extractFrames(c, loop)
        guard c.pendingCount > 0 else { return }
        if c.state.client == nil && !context.unauthorized.admit(c.peer.host, now: loop.clock.now) {
            // Its address failed authentication recently: this HELLO waits (the sweep retries).
            if !c.state.throttled {
                c.state.throttled = true
                context.count { $0.throttledHellos += 1 }
            }
            return
        }
        guard let item = c.popItem() else { return }
        if case .payload(let p) = item, p.count > context.configuration.maxFrame { c.state.answeringLargeFrame = p.count }
        let processor = context.processor
        let client = c.state.client
        let id = c.id
        let peer = c.state.peer
        loop.answer(c) { processor.process(item, client: client, connectionID: id, peer: peer) }
    }

    /// While finishing: complete requests still buffered are answered before our side shuts down.
    func answersBufferedRequest(_ c: ServerConnection, loop: ATLPLoop) -> Bool {
        decoder.extractFrames(c, loop)
        guard c.pendingCount > 0 else { return false }
        advance(c, loop: loop)
        return true
    }

    func answered(_ outcome: Outcome, on c: ServerConnection, loop: ATLPLoop) {
        releaseLargeFrame(c, c.state.answeringLargeFrame, loop)
        c.state.answeringLargeFrame = 0
        let host = c.peer.host
        if outcome.failedAuthentication { context.unauthorized.failed(host, now: loop.clock.now) }
        if c.state.client == nil && outcome.client != nil {
            if outcome.authenticated { context.unauthorized.succeeded(host) }
            context.beforeHello -= 1
            context.compactBeforeHello(loop)
        }
        c.state.client = outcome.client
        context.queue(outcome.bytes, on: c, loop)
        c.lastActivity = loop.clock.now
        if let code = outcome.error { context.count { $0.errors[code, default: 0] += 1 } }
        if outcome.close {
            c.finish()
            c.discardInbox()
        }
        loop.flush(c)
        if loop.connections[c.id] != nil { loop.finishIfDone(c) }
    }

    /// Gives back `bytes` of `c`'s large frames, and lets the connections waiting for room try again.
    func releaseLargeFrame(_ c: ServerConnection, _ bytes: Int, _ loop: ATLPLoop) {
        guard bytes > 0 else { return }
        c.state.largeFrameBytes -= bytes
        context.largeFrameBytes -= bytes
        // The last large frame answered: the heap it grew goes back to the system, so the
        // process's size follows the budget, not the largest burst of pictures it ever took.
        if context.largeFrameBytes == 0 { Posix.releaseFreeHeap() }
        for id in context.waitingForMemory {
            if let waiting = loop.connections[id], !waiting.answering { advance(waiting, loop: loop) } else { context.waitingForMemory.remove(id) }
        }
    }

}
