import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls

@testable import ATLPClient
@testable import ATLPServer

/// A scripted collector on a raw socket, for what a real `ATLPService` never does: it
/// announces `announcedMaxFrame` in WELCOME but answers `frame-too-large` (and closes) to
/// any EVENTS payload above `realMaxFrame`, as a proxy with a smaller limit would; and it
/// answers `bad-request` to batches holding the `poison` event. With `holdEvents` N it answers
/// EVENTS only once N of them are unanswered, all at once (in reverse order with
/// `answersReversed`): a client reading each ACK before its next batch then waits in vain.
final class FakeCollector: Sendable {
    let address: SocketAddress
    private let listener: Int32
    /// Every event id acknowledged, and how many ERRs were sent.
    let acknowledged = Mutex<[String]>([])
    let tooLarge = Mutex(0)
    private let stopping = Atomic<Bool>(false)

    /// EVENTS holding an event with this id are answered `ERR bad-request` (connection kept).
    let poison: String?

    let holdEvents: Int
    let answersReversed: Bool

    init(
        announcedMaxFrame: Int = 1 << 20, realMaxFrame: Int = 1 << 20, connections: Int, poison: String? = nil, holdEvents: Int = 1,
        answersReversed: Bool = false
    ) throws {
        self.poison = poison
        self.holdEvents = holdEvents
        self.answersReversed = answersReversed
        let wanted = SocketAddress(host: "127.0.0.1", port: 0)
        listener = try Posix.socket(wanted)
        try Posix.bind(listener, wanted)
        try Posix.listen(listener, backlog: 16, wanted)
        address = try Posix.localAddress(listener)
        let listener = self.listener
        Thread { [self] in
            for _ in 0..<connections {
                guard let (fd, _) = try? Posix.accept(listener) else { break }
                if stopping.load(ordering: .acquiring) {
                    Posix.close(fd)
                    break
                }
                serve(fd, announcedMaxFrame: announcedMaxFrame, realMaxFrame: realMaxFrame)
                Posix.close(fd)
            }
            Posix.close(listener)
        }.start()
    }

    /// Ends the accept loop (it may be waiting for a connection that never comes).
    func stop() {
        stopping.store(true, ordering: .releasing)
        _ = try? ATLPConnection(to: address, timeout: .seconds(2))
    }

    private func serve(_ fd: Int32, announcedMaxFrame: Int, realMaxFrame: Int) {
        try? Posix.setNonBlocking(fd, false)
        try? Posix.setTimeouts(fd, .seconds(10))
        var decoder = FrameDecoder(maxFrame: 1 << 24)
        var buffer = [UInt8](repeating: 0, count: 65536)
        func reply(_ frame: ATLPFrame) { try? Posix.sendAll(fd, frame.encoded) }
        var held: [ATLPFrame] = []
        while true {
            let next: [UInt8]?
            do { next = try decoder.next() } catch { return }
            guard let payload = next else {
                let r = try? Posix.withMutableBytes(&buffer) { (raw) throws(PosixError) -> IOResult in try Posix.read(fd, into: raw) }
                guard case .processed(let n) = r, n > 0 else { return }
                decoder.append(buffer[0..<n])
                continue
            }
            guard let frame = try? ATLPFrame.parse(payload: payload) else { return }
            switch frame.verb {
            case "HELLO":
                reply(ATLPFrame(verb: "WELCOME", body: JSONObject([("protocol", 1), ("maxFrame", .int(Int64(announcedMaxFrame)))])))
            case "EVENTS" where payload.count > realMaxFrame:
                tooLarge.withLock { $0 += 1 }
                reply(.error(.frameTooLarge, "a payload of \(payload.count) bytes is above \(realMaxFrame)"))
                return
            case "EVENTS" where poison != nil && (frame["events"]?.arrayValue ?? []).contains { $0["id"]?.stringValue == poison }:
                reply(.error(.badRequest, "event \(poison!) breaks a rule of this collector"))
            case "EVENTS":
                let events = frame["events"]?.arrayValue ?? []
                acknowledged.withLock { $0 += events.compactMap { $0["id"]?.stringValue } }
                held.append(ATLPFrame(verb: "ACK", body: JSONObject([
                    ("batch", frame["batch"]!), ("stored", .int(Int64(events.count))), ("duplicates", 0), ("rejected", 0),
                ])))
                if held.count >= holdEvents {
                    (answersReversed ? held.reversed() : held).forEach(reply)
                    held = []
                }
            default:
                reply(ATLPFrame(verb: "BYE"))
                return
            }
        }
    }
}
