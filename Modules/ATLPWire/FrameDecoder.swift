/// Splits a byte stream into frame payloads, whatever the split of the bytes (docs/wire.md §1).
///
/// The length prefix is checked as soon as it is complete: a bad one or one above
/// `maxFrame` throws before any payload byte is looked at. After an error the decoder
/// stays failed: the stream has no resynchronisation point.
///
/// The one exception (docs/wire.md §1, choice 18): a `SNAPSHOT` payload may be longer than
/// `maxFrame`, up to `maxSnapshotFrame`, when it is not the stream's first frame (the first
/// must be `HELLO`). For such a length the decoder reads the first 9 payload bytes and throws
/// `frame-too-large` unless they are `SNAPSHOT `; otherwise it sets `waitingLargeFrame` and
/// returns nothing more until its owner calls `admitLargeFrame()` (the server does once the
/// session's `HELLO` is accepted and its memory budget has room).
public struct FrameDecoder: Sendable {
    /// The largest payload accepted, in bytes.
    public let maxFrame: Int
    /// The largest `SNAPSHOT` payload accepted after the first frame (at least `maxFrame`).
    public let maxSnapshotFrame: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Length of the payload whose prefix has been read (so the prefix is parsed once).
    private var pendingLength: Int?
    private var failure: ATLPError?
    private var payloadsReturned = 0
    /// The pending payload is above `maxFrame` and was admitted.
    private var largeAdmitted = false
    /// The length of a `SNAPSHOT` payload above `maxFrame` whose prefix and verb were read,
    /// until `admitLargeFrame()`; nil otherwise.
    public private(set) var waitingLargeFrame: Int?

    /// The verb and space a payload above `maxFrame` must start with.
    static let largeVerb = Array("SNAPSHOT ".utf8)

    public init(maxFrame: Int, maxSnapshotFrame: Int? = nil) {
        self.maxFrame = maxFrame
        self.maxSnapshotFrame = max(maxFrame, maxSnapshotFrame ?? maxFrame)
    }

    /// The payload size the decoder may buffer now: the admitted large frame's, else `maxFrame`.
    public var frameLimit: Int {
        largeAdmitted ? max(maxFrame, pendingLength ?? 0) : maxFrame
    }

    /// Lets the waiting large `SNAPSHOT` frame be read whole.
    public mutating func admitLargeFrame() {
        guard let length = waitingLargeFrame else { return }
        waitingLargeFrame = nil
        largeAdmitted = true
        // Room for exactly this payload, from the buffer's start: it is read without the buffer
        // growing by doubling, and handed over without a copy (`decode`).
        buffer.removeFirst(start)
        start = 0
        buffer.reserveCapacity(length)
    }

    /// Bytes received and not yet returned as a payload.
    public var bufferedCount: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes from a raw buffer.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
    }

    /// The next complete payload, nil when more bytes are needed.
    public mutating func next() throws(ATLPError) -> [UInt8]? {
        if let failure { throw failure }
        do {
            return try decode()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func decode() throws(ATLPError) -> [UInt8]? {
        if pendingLength == nil {
            guard let length = try parsePrefix() else { return nil }
            pendingLength = length
        }
        let length = pendingLength!
        if length > maxFrame && !largeAdmitted {
            guard waitingLargeFrame == nil else { return nil }
            let head = min(length, Self.largeVerb.count)
            guard buffer.count - start >= head else { return nil }
            guard buffer[start..<(start + head)].elementsEqual(Self.largeVerb) else {
                throw ATLPError(
                    .frameTooLarge,
                    "a payload of \(length) bytes is above this side's maximum of \(maxFrame) bytes; "
                        + "only SNAPSHOT may be larger (up to \(maxSnapshotFrame) bytes)")
            }
            waitingLargeFrame = length
            return nil
        }
        guard buffer.count - start >= length else { return nil }
        pendingLength = nil
        largeAdmitted = false
        payloadsReturned += 1
        if start == 0 && buffer.count == length && length > maxFrame {
            // An admitted large frame fills the buffer alone: handed over as it is.
            defer { buffer = [] }
            return buffer
        }
        let payload = Array(buffer[start..<(start + length)])
        start += length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        } else if start > 65536 && start > buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        return payload
    }

    /// Reads `<digits> ` at `start`; consumes it and returns the length, or nil if incomplete.
    private mutating func parsePrefix() throws(ATLPError) -> Int? {
        var value = 0
        var digits = 0
        var i = start
        while i < buffer.count {
            let b = buffer[i]
            if b == 0x20 {
                guard digits > 0 else {
                    throw ATLPError(.badFrame, "a frame must start with its payload length in digits, found a space")
                }
                guard value <= maxFrame || (value <= maxSnapshotFrame && payloadsReturned > 0) else {
                    let snapshots =
                        maxSnapshotFrame == maxFrame
                        ? "" : payloadsReturned == 0 && value <= maxSnapshotFrame
                            ? "; only a SNAPSHOT after HELLO may be larger"
                            : "; only SNAPSHOT may be larger, up to \(maxSnapshotFrame) bytes"
                    throw ATLPError(
                        .frameTooLarge,
                        "a payload of \(value) bytes is above this side's maximum of \(maxFrame) bytes\(snapshots)")
                }
                start = i + 1
                return value
            }
            guard b >= 0x30 && b <= 0x39 else {
                let what = b >= 0x21 && b < 0x7F ? "'\(String(UnicodeScalar(b)))'" : "byte 0x\(String(b, radix: 16))"
                throw ATLPError(
                    .badFrame,
                    digits == 0
                        ? "a frame must start with its payload length in digits, found \(what)"
                        : "the length must be followed by one space, found \(what)")
            }
            if digits == 0 && b == 0x30 {
                throw ATLPError(.badFrame, "the length has a leading zero or is zero; it is 1 to 10 digits, at least 1")
            }
            digits += 1
            if digits > 10 { throw ATLPError(.badFrame, "the length has more than 10 digits") }
            value = value * 10 + Int(b - 0x30)
            i += 1
        }
        return nil
    }
}
