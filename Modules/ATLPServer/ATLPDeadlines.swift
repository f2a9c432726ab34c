import ATLPWire
import ConnectionLoop
import EventModel
import SystemCalls

/// The ATLP clocks: `HELLO` within `helloTimeout`, frames at `minimumFrameRate` after
/// `frameGracePeriod`, the authentication throttle's memory, and held-back `HELLO`s retried.
final class ATLPDeadlines: ConnectionDeadlines {
    typealias P = ATLPConnections
    let context: ATLPContext
    let responder: ATLPResponder

    init(_ context: ATLPContext, responder: ATLPResponder) {
        self.context = context
        self.responder = responder
    }

    func sweepBegins(now: ContinuousClock.Instant, loop: ATLPLoop) {
        if context.lastForget.map({ now - $0 >= .seconds(1) }) ?? true {
            context.unauthorized.forgetOld(now: now)
            context.lastForget = now
        }
    }

    func closingIdle(_ c: ServerConnection) {
        context.count { $0.idleClosed += 1 }
    }

    func sweep(_ c: ServerConnection, now: ContinuousClock.Instant, loop: ATLPLoop) {
        if c.state.throttled && !c.answering { responder.advance(c, loop: loop) }  // a held-back HELLO whose wait may be over
        guard loop.connections[c.id] != nil, c.isReading else { return }
        if c.state.client == nil && c.waitsOnClient && now - c.acceptedAt >= context.configuration.helloTimeout {
            context.count { $0.helloTimedOut += 1 }
            context.answerAndFinish(
                c, ATLPError(.helloRequired, "no HELLO within \(context.configuration.helloTimeout); a connection starts with HELLO"), loop)
            return
        }
        // The minimum-rate clock of a frame in progress runs only while we wait on the client:
        // it gets the grace period plus one second per `minimumFrameRate` bytes received.
        if c.state.decoder.bufferedCount == 0 {
            c.state.partialSince = nil
        } else if let since = c.state.partialSince, c.waitsOnClient, c.state.decoder.waitingLargeFrame == nil {
            let allowed =
                context.configuration.frameGracePeriod
                + .milliseconds(Int64(c.state.decoder.bufferedCount) * 1000 / Int64(context.configuration.minimumFrameRate))
            if now - since > allowed {
                context.count { $0.slowFramesClosed += 1 }
                loop.close(c)
            }
        } else {
            c.state.partialSince = now
        }
    }

}
