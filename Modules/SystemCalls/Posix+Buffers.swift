extension Posix {
    /// Runs `body` on the bytes of `array` from `offset`, with a typed error.
    package static func withBytes<R>(
        _ array: [UInt8], from offset: Int, _ body: (UnsafeRawBufferPointer) throws(PosixError) -> R
    ) throws(PosixError) -> R {
        var failure: PosixError?
        let r: R? = array.withUnsafeBytes { raw in
            do throws(PosixError) {
                return try body(UnsafeRawBufferPointer(rebasing: raw[offset...]))
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return r!
    }

    /// Runs `body` on a mutable byte buffer, with a typed error.
    package static func withMutableBytes<R>(
        _ array: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(PosixError) -> R
    ) throws(PosixError) -> R {
        var failure: PosixError?
        let r: R? = array.withUnsafeMutableBytes { raw in
            do throws(PosixError) {
                return try body(raw)
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return r!
    }
}
