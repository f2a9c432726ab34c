import EventModel
import EventStore

/// A batch as the ingest log keeps it (IngestLog.swift): who sent it, when it arrived, and its
/// events as they arrived (`EventList.arrayText`), enough to build the very same rows again
/// (`PendingBatch`) when a restart finds it logged but not yet stored in `events`.
///
/// Layout, little-endian: a format byte (1); `receivedAt` (8 bytes); `sentAt` (a presence byte,
/// then 8 bytes when present); `appKey`, `appVersion`, `agent`, `label` (each a presence byte,
/// then a 4-byte length and its UTF-8 when present; `appKey` always present); the rest is the
/// events' JSON array.
enum LoggedBatch {
    static let format: UInt8 = 1

    /// The record of `batch`, received at `receivedAt`.
    static func encode(_ batch: EventBatch, receivedAt: Int64) -> [UInt8] {
        var out: [UInt8] = [format]
        append(receivedAt, to: &out)
        if let sentAt = batch.sentAt {
            out.append(1)
            append(sentAt, to: &out)
        } else {
            out.append(0)
        }
        for text in [batch.appKey, batch.appVersion, batch.agent, batch.label] {
            guard let text else {
                out.append(0)
                continue
            }
            out.append(1)
            append(Int64(text.utf8.count), to: &out, bytes: 4)
            out.append(contentsOf: text.utf8)
        }
        out.append(contentsOf: batch.eventList.arrayText)
        return out
    }

    /// The batch and its arrival time a record holds; throws when the record is not one
    /// `encode` wrote (another format, cut short, or events that no longer parse).
    static func decode(_ record: UnsafeRawBufferPointer) throws(StoreError) -> (batch: EventBatch, receivedAt: Int64) {
        var reader = Reader(bytes: record)
        guard try reader.byte() == format else { throw reader.failure("format \(record.first ?? 0), not \(format)") }
        let receivedAt = try reader.int(8)
        let sentAt = try reader.byte() == 1 ? try reader.int(8) : nil
        var texts: [String?] = []
        for _ in 0..<4 {
            guard try reader.byte() == 1 else {
                texts.append(nil)
                continue
            }
            let count = Int(try reader.int(4))
            texts.append(String(decoding: try reader.take(count), as: UTF8.self))
        }
        guard let appKey = texts[0] else { throw reader.failure("no app key") }
        let events: EventList
        do throws(JSONParseError) {
            events = try EventList(arrayText: Array(reader.rest))
        } catch {
            throw reader.failure("its events do not parse (\(error))")
        }
        return (EventBatch(appKey: appKey, appVersion: texts[1], agent: texts[2], label: texts[3], sentAt: sentAt, eventList: events), receivedAt)
    }

    private static func append(_ value: Int64, to out: inout [UInt8], bytes: Int = 8) {
        let bits = UInt64(bitPattern: value)
        for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
    }

    /// Reads a record front to back, failing on a record cut short.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        mutating func take(_ count: Int) throws(StoreError) -> UnsafeRawBufferPointer {
            guard count >= 0, count <= bytes.count - position else { throw failure("cut short at byte \(position)") }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
        }

        mutating func byte() throws(StoreError) -> UInt8 { try take(1)[0] }

        mutating func int(_ count: Int) throws(StoreError) -> Int64 {
            var bits: UInt64 = 0
            for (i, b) in try take(count).enumerated() { bits |= UInt64(b) << (8 * UInt64(i)) }
            return Int64(bitPattern: bits)
        }

        var rest: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[position...]) }

        func failure(_ why: String) -> StoreError {
            StoreError(
                .failed,
                "a batch in the ingest log cannot be read: \(why); the log was written by another build, or damaged")
        }
    }
}
