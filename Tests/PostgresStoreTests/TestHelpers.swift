import Foundation
import Synchronization

/// Messages collected from several threads.
final class ErrorList: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
    var count: Int { all.count }
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass.
func poll(_ what: String, within seconds: Double, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return }
        Thread.sleep(forTimeInterval: 0.02)
    }
    throw TimeoutError(description: "\(what) did not happen within \(seconds) s")
}

struct TimeoutError: Error, CustomStringConvertible {
    var description: String
}
