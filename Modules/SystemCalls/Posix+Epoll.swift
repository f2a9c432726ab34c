import CSystemCalls

extension Posix {
    /// An epoll instance (Linux): the kernel keeps the interest set, a wait costs what is
    /// ready. Masks use poll's bit values, which epoll shares (IN 0x1, OUT 0x4, ERR 0x8,
    /// HUP 0x10). Creating one fails with `ENOSYS` where there is no epoll; use poll there.
    /// Owned by one thread.
    package final class Epoll {
        /// One ready descriptor: the id it was registered with and its events.
        package typealias Ready = (id: UInt64, events: Int16)

        private let fd: Int32
        private let buffer: UnsafeMutablePointer<csc_ready_event>
        private let capacity = Int32(CSC_EPOLL_MAX_EVENTS)

        package init() throws(PosixError) {
            fd = try check("epoll_create1") { csc_epoll_create() }
            buffer = .allocate(capacity: Int(capacity))
        }

        deinit {
            buffer.deallocate()
            Posix.close(fd)
        }

        package func add(_ fd: Int32, id: UInt64, events: Int16) throws(PosixError) {
            try control(CSC_EPOLL_ADD, fd, id: id, events: events)
        }

        package func modify(_ fd: Int32, id: UInt64, events: Int16) throws(PosixError) {
            try control(CSC_EPOLL_MODIFY, fd, id: id, events: events)
        }

        package func remove(_ fd: Int32) throws(PosixError) {
            try control(CSC_EPOLL_DELETE, fd, id: 0, events: 0)
        }

        private func control(_ op: Int32, _ target: Int32, id: UInt64, events: Int16) throws(PosixError) {
            let mask = UInt32(UInt16(bitPattern: events))
            _ = try check("epoll_ctl(op \(op), fd \(target))") { csc_epoll_ctl(fd, op, target, mask, id) }
        }

        /// Blocks up to `timeoutMilliseconds` (-1: forever); returns the ready ids and their events.
        package func wait(timeoutMilliseconds: Int32) throws(PosixError) -> [Ready] {
            let n = Int(try check("epoll_wait") { csc_epoll_wait(fd, buffer, capacity, timeoutMilliseconds) })
            var ready: [Ready] = []
            ready.reserveCapacity(n)
            for i in 0..<n {
                ready.append((buffer[i].data, Int16(truncatingIfNeeded: buffer[i].events & 0x7FFF)))
            }
            return ready
        }
    }
}
