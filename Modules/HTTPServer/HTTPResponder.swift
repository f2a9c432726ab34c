import ConnectionLoop

/// Requests to responses: one at a time per connection, none while the client has not read enough
/// of the answers (a client that does not read costs at most `maxOutputBytes` and one response).
final class HTTPResponder: ConnectionResponder {
    typealias P = HTTPConnections
    let context: HTTPContext
    let handler: any HTTPHandler
    let decoder: HTTPRequestDecoder

    init(_ context: HTTPContext, handler: any HTTPHandler, decoder: HTTPRequestDecoder) {
        self.context = context
        self.handler = handler
        self.decoder = decoder
    }

    /// Answers the next request if none is being answered.
    func advance(_ c: HTTPConnection, loop: HTTPLoop) {
        guard !c.answering, loop.connections[c.id] === c, c.unsentCount < context.configuration.maxOutputBytes else { return }
        decoder.extractRequests(c, loop)
        guard let item = c.popItem() else {
            if c.state.parser.wantsContinue && c.isReading && c.unsentCount == 0 {
                // The body is wanted and everything before it is answered: ask for it.
                c.state.parser.continueSent()
                loop.queue(ResponseWriter.continueBytes, on: c)
                context.count { $0.responses[100, default: 0] += 1 }
                loop.flush(c)
            }
            return
        }
        loop.touch(c)
        switch item {
        case .failure(let failure):
            c.discardInbox()
            c.finish()
            send(
                Answered(response: .error(failure.status, failure.message), closes: true, keepAliveHTTP10: false, omitBody: false),
                on: c, loop)
        case .request(let request):
            context.count { $0.requests += 1 }
            let handler = self.handler
            loop.answer(c) {
                let response = handler.respond(to: request)
                return Answered(
                    response: response, closes: ResponseWriter.closes(response, request: request),
                    keepAliveHTTP10: request.version == .http1_0, omitBody: request.method == .head)
            }
        }
    }

    func answered(_ answered: Answered, on c: HTTPConnection, loop: HTTPLoop) {
        send(answered, on: c, loop)
        if loop.connections[c.id] != nil { advance(c, loop: loop) }
    }

    /// Queues a response (the last one says `Connection: close`), then writes what it can.
    private func send(_ answered: Answered, on c: HTTPConnection, _ loop: HTTPLoop) {
        loop.touch(c)
        if answered.closes {
            c.finish()
            c.discardInbox()
        }
        // Stopping (or a failure queued behind it) makes this the last response.
        let last = answered.closes || (!c.isReading && c.pendingCount == 0)
        let bytes = ResponseWriter.serialize(
            answered.response, date: context.currentDate(), closing: last, keepAliveHTTP10: answered.keepAliveHTTP10 && !last,
            omitBody: answered.omitBody)
        let code = ResponseWriter.isSendable(answered.response) ? answered.response.status.code : 500
        if c.unsentCount == 0 { c.lastSendProgress = loop.clock.now }
        loop.queue(bytes, on: c)
        let unsent = c.unsentCount
        context.count {
            $0.responses[code, default: 0] += 1
            $0.peakOutputBytes = max($0.peakOutputBytes, unsent)
        }
        loop.flush(c)
        if loop.connections[c.id] != nil { loop.finishIfDone(c) }
    }
}
