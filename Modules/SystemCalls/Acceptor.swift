#if canImport(Glibc)
import Glibc
#endif

/// Accepts clients on a server's listening socket (on its I/O thread), holding one spare
/// descriptor so that a process out of descriptors can still take a waiting client and tell it
/// why, instead of leaving it to hang in the backlog. The ATLP and HTTP servers' loops use it.
package struct Acceptor {
    /// What one `next` did.
    package enum Outcome {
        /// A client to serve: a non-blocking, close-on-exec socket.
        case accepted(fd: Int32, peer: SocketAddress)
        /// Out of descriptors: the spare one took the waiting client (if any) and `refuse` had it.
        case refusedOutOfDescriptors
        /// No client waits.
        case empty
        /// Out of descriptors with no spare, or a connection aborted while queued: pause accepting
        /// briefly instead of spinning on a listener that stays readable.
        case failed
    }

    private var spareFD: Int32

    package init() {
        spareFD = Self.openSpare()
    }

    /// Accepts the next waiting client on `listener`. Out of descriptors, gives up the spare one to
    /// accept a client, hands its fd to `refuse` (which answers and closes it), then takes a new spare.
    package mutating func next(on listener: Int32, refuse: (Int32) -> Void) -> Outcome {
        do {
            guard let (fd, peer) = try Posix.accept(listener) else { return .empty }
            return .accepted(fd: fd, peer: peer)
        } catch where error.isOutOfDescriptors && spareFD >= 0 {
            Posix.close(spareFD)
            spareFD = -1
            if let (fd, _) = try? Posix.accept(listener) { refuse(fd) }
            spareFD = Self.openSpare()
            return .refusedOutOfDescriptors
        } catch {
            return .failed
        }
    }

    /// Closes the spare descriptor, when the loop ends.
    package mutating func close() {
        if spareFD >= 0 { Posix.close(spareFD) }
        spareFD = -1
    }

    private static func openSpare() -> Int32 {
        (try? Posix.open("/dev/null", O_RDONLY)) ?? -1
    }
}
