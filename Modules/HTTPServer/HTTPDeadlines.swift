import ConnectionLoop

/// The HTTP clocks, which run only while the server waits on the client: a response the client
/// does not read (`sendTimeout`), a slow body (`minimumBodyRate` after `bodyGracePeriod`), a slow
/// head (`headerTimeout`), nothing ever sent, and an idle kept-alive connection (`idleTimeout`).
final class HTTPDeadlines: ConnectionDeadlines {
    typealias P = HTTPConnections
    let context: HTTPContext

    init(_ context: HTTPContext) { self.context = context }

    func sweep(_ c: HTTPConnection, now: ContinuousClock.Instant, loop: HTTPLoop) {
        let configuration = context.configuration
        if c.unsentCount > 0 {
            if now - c.lastSendProgress >= configuration.sendTimeout {
                context.count { $0.sendTimeouts += 1 }
                loop.close(c)  // it does not read: nothing more can reach it
            }
            return
        }
        guard c.isReading, c.waitsOnClient else { return }
        let since = max(c.state.partialSince ?? c.waitingSince, c.waitingSince)
        if c.state.parser.isReadingBody {
            let allowed =
                configuration.bodyGracePeriod
                + .milliseconds(Int64(c.state.parser.bodyReceived) * 1000 / Int64(configuration.minimumBodyRate))
            if now - since > allowed {
                context.count { $0.slowBodies += 1 }
                context.timeOut(c, "the body arrived slower than \(configuration.minimumBodyRate) bytes per second", loop)
            }
        } else if c.state.parser.bufferedCount > 0 {
            if now - since >= configuration.headerTimeout {
                context.count { $0.headerTimeouts += 1 }
                context.timeOut(c, "the request head did not arrive within \(configuration.headerTimeout)", loop)
            }
        } else if c.state.requestsRead == 0 {
            if now - c.acceptedAt >= configuration.headerTimeout {
                context.count { $0.headerTimeouts += 1 }
                loop.close(c)  // nothing was ever sent: nothing to answer
            }
        } else if now - c.waitingSince >= configuration.idleTimeout {
            context.count { $0.idleClosed += 1 }
            loop.close(c)
        }
    }

    /// Idle between requests: nothing to answer or drain, so stopping need not wait on it.
    func closesAtStop(_ c: HTTPConnection) -> Bool {
        c.isReading && c.waitsOnClient && c.state.partialSince == nil && c.state.parser.bufferedCount == 0
    }
}
