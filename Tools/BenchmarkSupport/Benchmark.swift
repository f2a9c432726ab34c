import Foundation
import SystemCalls

/// What every benchmark under `Tools/` shares (swift-nio's performance tester keeps one harness
/// too): the `--quick` switch, clocks (`ContinuousClock` for wall time, the thread's CPU time),
/// rounds and their median or best, the load average the figures were taken under, and the
/// output: fixed-width rows and ratios to a baseline measured in the same run.
public enum Benchmark {
    /// `--quick` on the command line: a short run, to check the benchmark works (`Tools/benchmarks.sh --quick`).
    public static let isQuick = CommandLine.arguments.contains("--quick")

    /// `quick` rounds under `--quick`, else `full`.
    public static func rounds(quick: Int, full: Int) -> Int { isQuick ? quick : full }

    /// Prints the benchmark's first lines: `title` (its name and what it measures), `[quick]` under
    /// `--quick`, and the load average, since ratios compare only between equally quiet runs.
    public static func start(_ title: String) {
        print(title + (isQuick ? " [quick]" : ""))
        print("load average: \(loadAverage())")
    }

    /// The 1, 5 and 15 minute load averages (`/proc/loadavg`), or "unknown".
    public static func loadAverage() -> String {
        guard let bytes = try? Posix.readFile("/proc/loadavg") else { return "unknown" }
        return String(decoding: bytes, as: UTF8.self).split(separator: " ").prefix(3).joined(separator: " ")
    }

    // MARK: Clocks

    /// The wall-clock time `body` takes (`ContinuousClock`).
    public static func wallTime(_ body: () throws -> Void) rethrows -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return start.duration(to: clock.now)
    }

    /// The CPU time the calling thread has used: what work costs the thread itself, which other
    /// processes on a shared machine do not stretch.
    public static func threadCPUTime() -> Duration { Posix.threadCPUTime() }

    // MARK: Rounds

    /// The median of `values` (the upper one of an even count); `values` must not be empty.
    public static func median<T: Comparable>(_ values: [T]) -> T {
        percentile(values, 0.5)
    }

    /// The value below which the share `p` (0…1) of `values` lies: the sorted values' element at
    /// `count × p`, the last one for `p` = 1; `values` must not be empty.
    public static func percentile<T: Comparable>(_ values: [T], _ p: Double) -> T {
        precondition(!values.isEmpty, "a percentile of no rounds")
        return values.sorted()[min(values.count - 1, Int(Double(values.count) * p))]
    }

    /// The smallest of `rounds` results of `body`: the round least disturbed by other load.
    public static func best<T: Comparable>(_ rounds: Int, _ body: () throws -> T) rethrows -> T {
        try repeated(rounds, body).min()!
    }

    /// `body` run `rounds` times: its results, in order.
    public static func repeated<T>(_ rounds: Int, _ body: () throws -> T) rethrows -> [T] {
        var results: [T] = []
        for _ in 0..<rounds { results.append(try body()) }
        return results
    }

    // MARK: Output

    /// `d` in seconds.
    public static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// `d` in nanoseconds.
    public static func nanoseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9
    }

    /// `value` with `digits` decimals (`printf`'s `%.Nf`), at least `width` characters, right-aligned.
    public static func fixed(_ value: Double, _ digits: Int, width: Int = 0) -> String {
        String(format: "%\(width).\(digits)f", value)
    }

    /// `text` padded with spaces on the right to `width` characters: a row's label column.
    public static func label(_ text: String, width: Int) -> String {
        text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
    }

    /// `text` padded with spaces on the left to `width` characters: a right-aligned column.
    public static func column(_ text: String, width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `value / baseline` with `digits` decimals, the baseline having been measured in the same run.
    public static func ratio(_ value: Double, to baseline: Double, digits: Int = 2) -> String {
        fixed(value / baseline, digits)
    }

    /// Writes `text` and a newline to standard error (a benchmark's complaint), ignoring failure.
    public static func complain(_ text: String) {
        Posix.writeToStandardError(text + "\n")
    }

    /// Runs `executable` with `arguments` (not counting its name) and `environment` as a child,
    /// SIGTERM and SIGINT passed on to it, and exits with its status: a benchmark starting itself
    /// again (under `xvfb-run`, say). `name` is the benchmark's, for the complaint when it cannot.
    public static func exitRunning(_ executable: String, _ arguments: [String], environment: [String: String], name: String) -> Never {
        do {
            let program = executable.split(separator: "/").last.map(String.init) ?? executable
            exit(try Posix.runChild(executable, arguments: [program] + arguments, environment: environment, defaultSignals: [SIGPIPE, SIGINT, SIGTERM]))
        } catch {
            complain("\(name): cannot start \(executable) (\(error)); install xvfb or set DISPLAY")
            exit(1)
        }
    }
}
