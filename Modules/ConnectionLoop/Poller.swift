package import SystemCalls

/// Readiness of many fds, keyed by our own ids: `epoll` on Linux (cost independent of the
/// number of quiet connections), `poll` elsewhere or when epoll is unavailable.
/// Level-triggered; masks use poll's bits (IN, OUT, ERR, HUP). Owned by the I/O thread.
package protocol Poller: AnyObject {
    func add(_ fd: Int32, id: UInt64, events: Int16) throws(PosixError)
    func modify(_ fd: Int32, id: UInt64, events: Int16) throws(PosixError)
    /// Call before closing `fd`.
    func remove(_ fd: Int32)
    /// Blocks up to `timeoutMilliseconds`; returns the ready ids and their events.
    func wait(timeoutMilliseconds: Int32) throws(PosixError) -> [(id: UInt64, events: Int16)]
}

/// The `poll(2)` poller: one array, swap-removal, O(n) per wait in the kernel.
package final class PollPoller: Poller {
    private var fds: [pollfd] = []
    private var ids: [UInt64] = []
    private var index: [Int32: Int] = [:]

    package init() {}

    package func add(_ fd: Int32, id: UInt64, events: Int16) {
        index[fd] = fds.count
        fds.append(pollfd(fd: fd, events: events, revents: 0))
        ids.append(id)
    }

    package func modify(_ fd: Int32, id: UInt64, events: Int16) {
        if let i = index[fd] { fds[i].events = events }
    }

    package func remove(_ fd: Int32) {
        guard let i = index.removeValue(forKey: fd) else { return }
        let last = fds.count - 1
        if i != last {
            fds[i] = fds[last]
            ids[i] = ids[last]
            index[fds[i].fd] = i
        }
        fds.removeLast()
        ids.removeLast()
    }

    package func wait(timeoutMilliseconds: Int32) throws(PosixError) -> [(id: UInt64, events: Int16)] {
        let n = try Posix.poll(&fds, timeoutMilliseconds: timeoutMilliseconds)
        guard n > 0 else { return [] }
        var ready: [(id: UInt64, events: Int16)] = []
        ready.reserveCapacity(n)
        for i in fds.indices where fds[i].revents != 0 {
            ready.append((ids[i], fds[i].revents))
            fds[i].revents = 0
        }
        return ready
    }
}
