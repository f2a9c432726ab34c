import ATLPWire
import ConnectionLoop
import EventModel
import SystemCalls

/// Who may connect: refusals in ATLP's words, and room kept for clients that say `HELLO`.
final class ATLPAdmission: ConnectionAdmission {
    typealias P = ATLPConnections
    let context: ATLPContext
    let responder: ATLPResponder

    init(_ context: ATLPContext, responder: ATLPResponder) {
        self.context = context
        self.responder = responder
    }

    func refusal(_ cause: RefusalCause) -> [UInt8] {
        let reason: String
        switch cause {
        case .outOfDescriptors: reason = "the collector is out of file descriptors; retry later"
        case .limit(full: true, _, _):
            reason = "the collector has its maximum of \(context.configuration.maxConnections) connections open; retry later"
        case .limit(full: false, _, let host):
            reason =
                "the collector has its maximum of \(context.configuration.maxConnectionsPerAddress) connections open from \(host); "
                + "close some or retry later"
        }
        return ATLPFrame.error(.tooManyConnections, reason).encoded
    }

    func countRefusal() {
        context.count {
            $0.refused += 1
            $0.errors[.tooManyConnections, default: 0] += 1
        }
    }

    func opened(_ c: ServerConnection, loop: ATLPLoop) {
        context.beforeHello += 1
        context.beforeHelloOrder.append(c.id)
        let open = loop.openCount
        context.count {
            $0.accepted += 1
            $0.open = open
        }
        if context.beforeHello > context.configuration.connectionsBeforeHelloLimit { closeOldestBeforeHello(loop) }
    }

    /// Makes room for a new connection when too many wait for their `HELLO`: closes the one
    /// that has waited longest (not one whose `HELLO` a worker is answering), after a
    /// best-effort `ERR` on plain TCP. Slow `HELLO`s from many addresses then churn among
    /// themselves instead of filling every slot.
    private func closeOldestBeforeHello(_ loop: ATLPLoop) {
        for _ in 0..<(context.beforeHelloOrder.count - context.beforeHelloHead) {
            let id = context.beforeHelloOrder[context.beforeHelloHead]
            context.beforeHelloHead += 1
            guard let c = loop.connections[id], c.state.client == nil, !c.isRefusal else { continue }
            guard !c.answering else {
                context.beforeHelloOrder.append(id)  // about to say HELLO: look again later
                continue
            }
            context.count {
                $0.closedBeforeHello += 1
                $0.errors[.tooManyConnections, default: 0] += 1
            }
            guard c.channel == nil else {
                loop.close(c)
                break
            }
            let reason =
                "the collector has its maximum of \(context.configuration.connectionsBeforeHelloLimit) connections waiting for HELLO; "
                + "send HELLO as soon as the connection is open"
            loop.close(c, after: ATLPFrame.error(.tooManyConnections, reason).encoded)
            break
        }
        context.compactBeforeHello(loop)
    }

    func closed(_ c: ServerConnection, loop: ATLPLoop) {
        context.waitingForMemory.remove(c.id)
        responder.releaseLargeFrame(c, c.state.largeFrameBytes, loop)
        if c.state.client == nil { context.beforeHello -= 1 }
        let open = loop.openCount
        context.count { $0.open = open }
        let client = c.state.client
        let peer = c.state.peer
        let handler = context.handler
        loop.workers.submit { handler.closed(client: client, peer: peer) }
    }

}
