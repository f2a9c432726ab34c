/// Splits a byte stream into frame payloads, whatever the split of the bytes (docs/wire.md §1).
///
/// The length prefix is checked as soon as it is complete: a bad one or one above
/// `maxFrame` throws before any payload byte is looked at. After an error the decoder
/// stays failed: the stream has no resynchronisation point.
public struct FrameDecoder: Sendable {
    /// The largest payload accepted, in bytes.
    public let maxFrame: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Length of the payload whose prefix has been read (so the prefix is parsed once).
    private var pendingLength: Int?
    private var failure: ATLPError?

    public init(maxFrame: Int) {
        self.maxFrame = maxFrame
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
        guard buffer.count - start >= length else { return nil }
        let payload = Array(buffer[start..<(start + length)])
        start += length
        pendingLength = nil
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
                guard value <= maxFrame else {
                    throw ATLPError(
                        .frameTooLarge, "a payload of \(value) bytes is above this side's maximum of \(maxFrame) bytes")
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
