/// The batches sent on one connection and not yet answered.
///
/// The shipper sends sealed batches oldest first and the collector answers in order, so the
/// batches in flight are always the oldest `count` sealed batches of the spool, in order: the
/// next to send is the sealed batch right after them, and every answer is for `head`.
struct InFlightBatches {
    private(set) var batches: [SpooledBatch] = []

    var count: Int { batches.count }
    var isEmpty: Bool { batches.isEmpty }
    /// The batch the next answer is for.
    var head: SpooledBatch? { batches.first }

    /// The sealed batch to send next (nil when every sealed batch is in flight).
    func nextToSend(sealed: [SpooledBatch]) -> SpooledBatch? {
        assert(sealed.starts(with: batches), "in-flight batches must be the oldest sealed ones")
        return sealed.count > batches.count ? sealed[batches.count] : nil
    }

    /// `batch` (from `nextToSend`) went out.
    mutating func sent(_ batch: SpooledBatch) {
        batches.append(batch)
    }

    /// The head was answered (acknowledged, or set aside): the next answer is for the one after.
    mutating func headAnswered() {
        batches.removeFirst()
    }
}
