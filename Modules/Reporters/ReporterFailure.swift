import SystemCalls

/// A reporter's first failure, as the reporting system announces it (once per reporter).
public struct ReporterFailure: Sendable, Hashable, CustomStringConvertible {
    /// Position of the reporter in the system's list.
    public var reporterIndex: Int
    public var reporterType: String
    /// `report` or `flush`.
    public var operation: String
    /// The event being reported, where there was one.
    public var eventID: String?
    /// The reporter's error, as text.
    public var error: String

    public init(reporterIndex: Int, reporterType: String, operation: String, eventID: String?, error: String) {
        self.reporterIndex = reporterIndex
        self.reporterType = reporterType
        self.operation = operation
        self.eventID = eventID
        self.error = error
    }

    public var description: String {
        let event = eventID.map { " event \($0)" } ?? ""
        return "autotrack: reporter #\(reporterIndex) (\(reporterType)) failed to \(operation)\(event): \(error). "
            + "The other reporters go on; further failures of this reporter are counted, not printed."
    }

    /// The default diagnostics: one line on standard error.
    @Sendable public static func writeToStandardError(_ failure: ReporterFailure) {
        Posix.writeToStandardError(failure.description + "\n")
    }
}
