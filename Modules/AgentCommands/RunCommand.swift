import ATLPClient
import CommandSupport
import Foundation
import KVCConfig
import ProgramLaunch
import Synchronization
import SystemCalls
import Tracker


/// `autotrack-agent run`: tracks an unmodified GTK 4 application through the preload library.
public struct RunCommand: Command {
    public static let name = "run"
    public static let abstract = "runs a GTK 4 or GNUstep program with codeless tracking loaded into it (LD_PRELOAD)"
    public static let discussion = """
        Runs PROGRAM with the Autotrack preload library (libAutotrackPreload.so, found beside this
        tool or at $AUTOTRACK_PRELOAD_LIBRARY) loaded into it. Its constructor hooks GTK's signals
        process-wide, so what the user does in the application (clicks, toggles, switches,
        scales, drop-downs, list rows, click gestures, pages of stacks and notebooks, app start,
        foreground and background) is tracked with no code in the application: named by viewPath
        and viewId (docs/viewpath.md §5), shaped by the configuration, and shipped on a
        thread of its own. docs/gtk.md describes what is tracked and how.

        With --to, events are spooled in --spool and sent to that collector (ATLP/1); at exit the
        spool is flushed for at most 2 seconds, and what is not acknowledged stays there for the
        next run. When no collector can be reached, one line on standard error says so (the
        program runs on, its events are kept in the spool); when the program has ended, one line
        says how many events wait in which spool folder. Without --to, events are written as NDJSON to --out (default: standard error).
        --tree-dir writes each page's widget tree (view-tree JSON with ids, titles, paths and
        frames) when the page is entered, to write rules against.

        Snapshots (a PNG of the window and the page's tree with frames and readable properties,
        typed text blanked) go to the collector while someone circles the app in the studio
        (circle mode, learnt from the collector's CONFIG answers); --snapshots sends them always.

        --debug (also $AUTOTRACK_DEBUG=1) prints one line per interaction on standard error as it
        happens: kind, path, event code, the rules that matched with the values read, and for an
        interaction no rule matched, the nearest rule of the same viewEvent and the first path
        element where it differs (docs/agent.md "Debug mode"):
          autotrack debug: click path=… code=… no rule matched; nearest r1 differs at element 2: expected GtkButton[1], got GtkButton[0]

        A GNUstep (AppKit) PROGRAM (it links libgnustep-gui) gets libAutotrackObjCPreload.so
        instead (beside this tool or at $AUTOTRACK_OBJC_PRELOAD_LIBRARY), after the Swift
        toolchain's libBlocksRuntime.so: it replaces methods of AppKit's classes through the
        Objective-C runtime, so target-actions (buttons, matrices, menu items, key equivalents)
        get Controller#Target#Action codes and windows are pages; GNUstep's daemons (gdnc, gpbs)
        and the program's children are not tracked. docs/objc.md describes it.

        A PROGRAM that is neither a GTK 4 nor a GNUstep application runs untouched, with
        one line on standard error saying nothing is tracked. The exit status is PROGRAM's (128+N
        when signal N ended it); 2 for a usage error, 1 when PROGRAM cannot be started.
        """
    static let to = CollectorOptions.to.described(
        "ship to this collector; more are failover, tried in order when one does not answer")
    static let token = AgentOptions.ingestToken.described("with --to: the collector's ingest token")
    static let appKey = Option.single("app-key", "K", help: "the key events are sent under (default: PROGRAM's file name)")
    static let appVersion = Option.single(
        "app-version", "V", help: "the app's version, numbers joined by dots", default: LaunchSettings.defaultAppVersion)
    static let config = AgentOptions.config.described("a configuration document; several merge (default: none)")
    static let spool = Option.single("spool", "DIR", help: "the spool directory (default: ~/.local/state/autotrack/spool/<app key>)")
    static let treeDir = Option.single("tree-dir", "DIR", help: "write each entered page's widget tree into DIR")
    static let out = Option.single("out", "FILE", help: "without --to: the NDJSON file (default: standard error)")
    static let snapshots = Option.flag("snapshots", help: "with --to: send a snapshot of each page shown, as in circle mode")
    static let configRefresh = Option.single(
        "config-refresh", "SECONDS", help: "how often the tracker asks the collector (--to) for rules (default 60)")
    public static let optionGroups = [
        OptionGroup([token, appKey, appVersion, config, configRefresh, spool, treeDir, out, snapshots, AgentOptions.debug]),
        CollectorOptions.group(to: to),
    ]
    public static let positionals = "-- PROGRAM [ARGS ...]"
    public static let examples = """
        autotrack-agent run --out events.ndjson -- gtk4-widget-factory
        autotrack-agent run --to 127.0.0.1:7070 --app-key shop --app-version 1.2.0 \\
            --config Examples/gtk-shop-rules.json --tree-dir trees -- autotrack-gtk-shop
        autotrack-agent run --to 127.0.0.1:7070 --app-key shop --snapshots -- autotrack-gtk-shop
        autotrack-agent run --debug --config Examples/gtk-shop-rules.json --out events.ndjson -- autotrack-gtk-shop
        """

    let settings: LaunchSettings
    let program: [String]

    public init(arguments: inout Arguments) throws(UsageError) {
        let collectors = try CollectorOptions(arguments: &arguments)
        let shipping = !collectors.addresses.isEmpty
        let token = try arguments.value(Self.token)
        let appKey = try arguments.value(Self.appKey)
        let appVersion = try arguments.value(defaulted: Self.appVersion)
        let configs = try arguments.values(Self.config)
        let spool = try arguments.value(Self.spool)
        let trees = try arguments.value(Self.treeDir)
        let out = try arguments.value(Self.out)
        let configRefresh = try arguments.double(Self.configRefresh, in: 0.01...86_400)
        let snapshots = arguments.isSet(Self.snapshots)
        let debug = arguments.isSet(AgentOptions.debug)
        if out != nil, shipping { throw UsageError("--out names the NDJSON file used without --to; give one of them") }
        if snapshots, !shipping { throw UsageError("--snapshots sends snapshots to the collector: give it with --to HOST:PORT") }
        program = try arguments.positionals()
        guard let first = program.first else {
            throw UsageError("give the program to run after '--', e.g. 'autotrack-agent run -- gtk4-widget-factory'")
        }
        let key = appKey ?? String(first.split(separator: "/").last ?? "app")
        do {
            _ = try TrackedApp(key: key, version: appVersion)
        } catch {
            throw UsageError(error.description)
        }
        func absolute(_ path: String?) -> String? {
            path.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        }
        settings = LaunchSettings(
            collectors: collectors.addresses.map(\.description), tls: collectors.tls != nil,
            tlsAuthorityFile: absolute(collectors.tls?.authorityFile), token: shipping ? token : nil, appKey: key, appVersion: appVersion,
            configFiles: configs.map { absolute($0)! }, spoolDirectory: absolute(spool), treeDirectory: absolute(trees),
            out: absolute(out), configRefresh: configRefresh, snapshots: snapshots, debug: debug, home: ProcessInfo.processInfo.environment["HOME"])
    }

    public func run(io: any OutputStreams) -> ExitCode {
        guard let executable = RunCommand.resolve(program[0]) else {
            io.printError("autotrack-agent run: no executable '\(program[0])' (looked in $PATH); give a path or install the program")
            return .failure
        }
        if !settings.configFiles.isEmpty, loadPlan(files: settings.configFiles, io: io, command: "autotrack-agent run") == nil {
            return .failure
        }
        var environment = ProcessInfo.processInfo.environment
        if GtkProgram.isGtk4(path: executable) {
            guard let library = RunCommand.preloadLibrary() else {
                io.printError(
                    "autotrack-agent run: the preload library libAutotrackPreload.so is not beside autotrack-agent; build it with 'swift build --product AutotrackPreload' or set AUTOTRACK_PRELOAD_LIBRARY")
                return .failure
            }
            for (k, v) in settings.environment { environment[k] = v }
            environment["LD_PRELOAD"] = [library, environment["LD_PRELOAD"]].compactMap { $0 }.joined(separator: ":")
        } else if GNUstepProgram.isGNUstep(path: executable) {
            switch RunCommand.gnustepPreload() {
            case .failure(let failure):
                io.printError("autotrack-agent run: \(failure)")
                return .failure
            case .success(let libraries):
                for (k, v) in settings.environment { environment[k] = v }
                environment["LD_PRELOAD"] = (libraries + [environment["LD_PRELOAD"]].compactMap { $0 }).joined(separator: ":")
            }
        } else {
            io.printError(GtkProgram.untrackedNotice(program: executable))
        }
        let status: Int32
        do {
            // The program starts with SIGTERM, SIGINT, SIGPIPE and SIGXFSZ (which the agent ignores) at
            // their default actions; the preload library ignores SIGXFSZ again in a tracked program.
            status = try Posix.runChild(
                executable, arguments: program, environment: environment, defaultSignals: [SIGTERM, SIGINT, SIGPIPE, SIGXFSZ])
        } catch {
            io.printError("autotrack-agent run: \(executable) could not be started: \(error)")
            return .failure
        }
        sayWhatWaitsInTheSpool(io: io)
        return ExitCode(status)
    }

    /// Once the program ended (however: its exit, a crash, a kill), says how many events its
    /// shipper left unacknowledged in the spool, and where; nothing when none wait.
    private func sayWhatWaitsInTheSpool(io: any OutputStreams) {
        guard !settings.collectors.isEmpty else { return }
        let spool = settings.spoolDirectory
        do throws(SpoolError) {
            let waiting = try EventShipper.waitingEvents(inSpool: spool)
            guard waiting > 0 else { return }
            io.printError(
                "autotrack-agent run: \(waiting) \(waiting == 1 ? "event waits" : "events wait") in the spool \(spool), not "
                    + "acknowledged by the collector (\(settings.collectors.joined(separator: ", "))); the next run with "
                    + "this spool sends them")
        } catch {
            io.printError("autotrack-agent run: cannot count the events left in the spool: \(error)")
        }
    }

    /// `name` as a path, or found in `$PATH`.
    static func resolve(_ name: String) -> String? {
        let fm = FileManager.default
        if name.contains("/") { return fm.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where fm.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        return nil
    }

    /// `$AUTOTRACK_PRELOAD_LIBRARY`, or the library beside this executable (or in `../lib`).
    static func preloadLibrary() -> String? {
        let fm = FileManager.default
        if let given = ProcessInfo.processInfo.environment["AUTOTRACK_PRELOAD_LIBRARY"], fm.fileExists(atPath: given) {
            return given
        }
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for candidate in ["libAutotrackPreload.so", "../lib/libAutotrackPreload.so"] {
            let path = me.appendingPathComponent(candidate).standardizedFileURL.path
            if fm.fileExists(atPath: path) { return path }
        }
        return nil
    }
}
