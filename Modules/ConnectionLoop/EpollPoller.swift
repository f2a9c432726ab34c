package import SystemCalls

/// The `epoll(7)` poller: the kernel keeps the interest set, a wait costs what is ready.
package final class EpollPoller: Poller {
    private let epoll: Posix.Epoll

    /// Fails (`ENOSYS`) where there is no epoll.
    package init() throws(PosixError) {
        epoll = try Posix.Epoll()
    }

    package func add(_ fd: Int32, id: UInt64, events: Int16) throws(PosixError) {
        try epoll.add(fd, id: id, events: events)
    }

    package func modify(_ fd: Int32, id: UInt64, events: Int16) throws(PosixError) {
        try epoll.modify(fd, id: id, events: events)
    }

    package func remove(_ fd: Int32) {
        try? epoll.remove(fd)  // closing the fd removes it anyway
    }

    package func wait(timeoutMilliseconds: Int32) throws(PosixError) -> [(id: UInt64, events: Int16)] {
        try epoll.wait(timeoutMilliseconds: timeoutMilliseconds)
    }
}
