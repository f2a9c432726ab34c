import Foundation
import Testing
import TestSupport

/// What the injected libraries carry (docs/architecture.md "What each binary links"): each links
/// its own toolkit's adapter and the toolkit-free tracker, never another toolkit, the UIKit model,
/// the source scanner of `check`, a store, the collector or the studio. Read from the built
/// libraries as a user's loader sees them: `readelf -d` for the system libraries, `nm` for the
/// Swift modules whose code they hold.
@Suite struct LinkageTests {
    /// Swift modules no injected library may hold: the UIKit model, command-only code, the collector side.
    static let collectorSide = [
        "Hooks", "DemoShop", "SourceInventory", "AgentCommands", "EventStore", "StoreSQL", "SQLiteStore", "PostgresStore",
        "Collector", "Studio", "HTTPServer", "ConnectionLoop", "ATLPServer", "Analytics", "Definitions", "PathDrift",
    ]
    static let serverLibraries = ["libsqlite3", "libpq", "libwebkit"]

    @Test func theGtkPreloadLinksGtkAndTheTrackerOnly() throws {
        let linked = try Linked(library: "libAutotrackPreload.so")
        #expect(linked.holds("GtkTracking") && linked.holds("Tracker") && linked.needs("libgtk-4"))
        for module in Self.collectorSide + ["AppKitTracking", "ObjCRuntime"] { #expect(!linked.holds(module), "holds \(module)") }
        for library in Self.serverLibraries + ["libgnustep", "libobjc"] { #expect(!linked.needs(library), "needs \(library)") }
    }

    @Test func theGNUstepPreloadLinksAppKitTrackingAndTheTrackerOnly() throws {
        let linked = try Linked(library: "libAutotrackObjCPreload.so")
        #expect(linked.holds("AppKitTracking") && linked.holds("Tracker") && linked.needs("libobjc"))
        for module in Self.collectorSide + ["GtkTracking"] { #expect(!linked.holds(module), "holds \(module)") }
        for library in Self.serverLibraries + ["libgtk", "libgdk"] { #expect(!linked.needs(library), "needs \(library)") }
    }

    @Test func theAgentLinksNoCollectorStoreOrStudio() throws {
        let linked = try Linked(library: "autotrack-agent")
        #expect(linked.holds("AgentCommands") && linked.holds("Tracker"))
        for module in ["SourceInventory", "Hooks", "DemoShop"] { #expect(linked.holds(module), "lacks \(module)") }
        let collectorOnly = Self.collectorSide.filter { !["Hooks", "DemoShop", "SourceInventory", "AgentCommands", "PathDrift"].contains($0) }
        for module in collectorOnly { #expect(!linked.holds(module), "holds \(module)") }
        for library in ["libsqlite3", "libpq"] { #expect(!linked.needs(library), "needs \(library)") }
    }
}

/// One built library's dynamic dependencies and the Swift modules it holds code of.
private struct Linked {
    let needed: [String]
    let modules: Set<String>

    init(library name: String) throws {
        let path = Binaries.path(name)
        let dynamic = try runCommand(URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", path.path], within: 60)
        guard dynamic.status == 0 else { throw HarnessError(description: "readelf -d \(path.path): \(dynamic.err)") }
        needed = dynamic.out.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last.map { String($0.prefix { $0 != "]" }) }
        }
        let symbols = try runCommand(URL(fileURLWithPath: "/usr/bin/nm"), ["--defined-only", path.path], within: 120)
        guard symbols.status == 0 else { throw HarnessError(description: "nm \(path.path): \(symbols.err)") }
        var modules: Set<String> = []
        for line in symbols.out.split(separator: "\n") {
            // A Swift symbol of module M starts `$s` + M's length + M.
            guard let name = line.split(separator: " ").last, name.hasPrefix("$s") else { continue }
            let rest = name.dropFirst(2)
            let digits = rest.prefix(while: \.isNumber)
            guard let length = Int(digits), length > 0 else { continue }
            let module = rest.dropFirst(digits.count).prefix(length)
            if module.count == length { modules.insert(String(module)) }
        }
        self.modules = modules
    }

    func holds(_ module: String) -> Bool { modules.contains(module) }
    func needs(_ prefix: String) -> Bool { needed.contains { $0.hasPrefix(prefix) } }
}
