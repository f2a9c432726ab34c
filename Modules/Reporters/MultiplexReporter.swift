public import EventModel

/// Fans each event out to several reporters; one that throws never keeps the event from the others.
public struct MultiplexReporter: Reporter {
    public let reporters: [any Reporter]

    public init(_ reporters: [any Reporter]) {
        self.reporters = reporters
    }

    /// Delivers to every reporter, then throws one error naming each that failed.
    public func report(_ event: TrackEvent) throws(MultiplexReporterError) {
        var failures: [MultiplexReporterError.Failure] = []
        for (i, r) in reporters.enumerated() {
            do { try r.report(event) } catch {
                failures.append(.init(index: i, reporterType: String(reflecting: type(of: r)), error: error))
            }
        }
        if !failures.isEmpty { throw MultiplexReporterError(operation: "report", failures: failures) }
    }

    /// Flushes every reporter, then throws one error naming each that failed.
    public func flush() throws(MultiplexReporterError) {
        var failures: [MultiplexReporterError.Failure] = []
        for (i, r) in reporters.enumerated() {
            do { try r.flush() } catch {
                failures.append(.init(index: i, reporterType: String(reflecting: type(of: r)), error: error))
            }
        }
        if !failures.isEmpty { throw MultiplexReporterError(operation: "flush", failures: failures) }
    }
}

/// Some reporters of a `MultiplexReporter` failed; the others received the event.
public struct MultiplexReporterError: Error, CustomStringConvertible {
    /// One reporter that threw.
    public struct Failure: Sendable {
        /// Position in the multiplex's list.
        public var index: Int
        public var reporterType: String
        public var error: any Error
    }

    /// `report` or `flush`.
    public var operation: String
    public var failures: [Failure]

    public var description: String {
        let each = failures.map { "reporter #\($0.index) (\($0.reporterType)): \($0.error)" }
        return "\(operation) failed in \(failures.count) reporter(s) of a multiplex, the others went on: "
            + each.joined(separator: "; ")
    }
}
