import ATLPClient
import CommandSupport
import Synchronization

/// `send`'s progress on standard error: redrawn in place on a terminal, silent otherwise.
///
/// Updated from the shipper's thread (after each ACK) and from the reading loop; a lock guards
/// the counters and keeps lines whole.
final class SendProgress: Sendable {
    private struct State {
        var read = 0
        var recovered = 0
        var acknowledged = 0
        /// Until the input is read, the total is not known yet.
        var reading = true
        var lastError: String?
        var drawn = false
        var lastDraw: ContinuousClock.Instant?
    }

    private let io: any OutputStreams
    private let address: String
    private let terminal: Bool
    private let state = Mutex(State())

    init(io: any OutputStreams, address: String) {
        self.io = io
        self.address = address
        terminal = io.errIsTerminal
    }

    func setRecovered(_ n: Int) {
        state.withLock { $0.recovered = n }
        if n > 0 { problem("autotrack-agent send: \(n) events left in the spool by an earlier run are sent first") }
    }

    func setRead(_ n: Int) {
        state.withLock { $0.read = n }
        draw(force: false)
    }

    /// The input is read: from now on the total is known.
    func readingFinished() {
        state.withLock { $0.reading = false }
        draw(force: true)
    }

    func update(_ stats: ShipperStatistics) {
        state.withLock { s in
            s.acknowledged = stats.acknowledgedEvents
            s.lastError = stats.lastError
        }
        draw(force: false)
    }

    /// Prints a line of its own (an invalid line, a warning) without tearing the progress line.
    func problem(_ line: String) {
        state.withLock { s in
            if terminal, s.drawn { io.err("\r\u{1B}[K") }
            io.printError(line)
            s.drawn = false
        }
        draw(force: true)
    }

    /// Clears the progress line, so the summary and errors start on a clean line.
    func finish() {
        guard terminal else { return }
        state.withLock { s in
            if s.drawn { io.err("\r\u{1B}[K") }
            s.drawn = false
        }
    }

    private func draw(force: Bool) {
        guard terminal else { return }
        state.withLock { s in
            let now = ContinuousClock.now
            if !force, let last = s.lastDraw, now - last < .milliseconds(100) { return }
            s.lastDraw = now
            let total = s.read + s.recovered
            var text: String
            if s.reading {
                text = "sending to \(address): \(total) read, \(s.acknowledged) acknowledged"
            } else {
                let percent = total > 0 ? min(100, s.acknowledged * 100 / total) : 100
                text = "sending to \(address): \(s.acknowledged) of \(total) acknowledged (\(percent)%)"
            }
            if let e = s.lastError, s.acknowledged < total { text += " · retrying: \(e)" }
            io.err("\r\u{1B}[K" + String(text.prefix(160)))
            s.drawn = true
        }
    }
}
