// swift-tools-version: 6.0
// Autotrack: codeless user-behaviour tracking for Swift apps, and the collector that receives it.
// No package dependencies: only the toolchain and system libraries through `.systemLibrary` targets
// (SQLite; libpq for PostgresStore, OpenSSL for ATLPTLS, GTK 4 for the GTK targets, WebKitGTK 6 for
// the web view test's sample app — each needed only by the targets that link it).
//
// Platforms: built and tested on Linux (Debian 12, x86_64, Swift 6.3): SystemCalls uses Glibc and
// epoll, so the package does not build on Apple platforms today. The macOS line below only states
// what `Synchronization.Mutex` would need there.
import PackageDescription

let package = Package(
    name: "Autotrack",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EventModel", targets: ["EventModel"]),
        .library(name: "Reporters", targets: ["Reporters"]),
        .library(name: "ViewIdentity", targets: ["ViewIdentity"]),
        .library(name: "Interactions", targets: ["Interactions"]),
        .library(name: "Hooks", targets: ["Hooks"]),
        .library(name: "KVCConfig", targets: ["KVCConfig"]),
        .library(name: "SourceInventory", targets: ["SourceInventory"]),
        .library(name: "Matching", targets: ["Matching"]),
        .library(name: "ATLPWire", targets: ["ATLPWire"]),
        .library(name: "ATLPClient", targets: ["ATLPClient"]),
        .library(name: "ATLPServer", targets: ["ATLPServer"]),
        .library(name: "ATLPTLS", targets: ["ATLPTLS"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "Studio", targets: ["Studio"]),
        .library(name: "EventStore", targets: ["EventStore"]),
        .library(name: "StoreSQL", targets: ["StoreSQL"]),
        .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
        .library(name: "Collector", targets: ["Collector"]),
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
        .library(name: "Tracker", targets: ["Tracker"]),
        .library(name: "AgentPipeline", targets: ["AgentPipeline"]),
        .library(name: "DemoShop", targets: ["DemoShop"]),
        .library(name: "PNGImage", targets: ["PNGImage"]),
        .library(name: "CommandSupport", targets: ["CommandSupport"]),
        .library(name: "AgentCommands", targets: ["AgentCommands"]),
        .library(name: "PathDrift", targets: ["PathDrift"]),
        .library(name: "Analytics", targets: ["Analytics"]),
        .library(name: "Definitions", targets: ["Definitions"]),
        .executable(name: "autotrack-agent", targets: ["autotrack-agent"]),
        .executable(name: "autotrack-collector", targets: ["autotrack-collector"]),
        // GTK 4 (docs/gtk.md): only these targets need libgtk-4-dev.
        .library(name: "GtkTracking", targets: ["GtkTracking"]),
        .library(name: "PreloadPipeline", targets: ["PreloadPipeline"]),
        .library(name: "AutotrackPreload", type: .dynamic, targets: ["AutotrackPreload"]),
        .library(name: "GtkShop", targets: ["GtkShop"]),
        .executable(name: "autotrack-gtk-shop", targets: ["autotrack-gtk-shop"]),
    ],
    targets: [
        // What every module speaks: the event value and JSON values.
        .target(
            name: "EventModel", path: "Modules/EventModel",
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // Every system call, in one internal module (not a product), over a small C shim.
        .target(name: "CSystemCalls", path: "Modules/CSystemCalls"),
        .target(name: "SystemCalls", dependencies: ["CSystemCalls"], path: "Modules/SystemCalls"),
        // The plugin point where events go.
        .target(name: "Reporters", dependencies: ["EventModel", "SystemCalls"], path: "Modules/Reporters"),
        .target(name: "ViewIdentity", dependencies: ["EventModel"], path: "Modules/ViewIdentity"),
        // What every toolkit's hooks deliver (the interaction, its observer, its clock, its event): no toolkit.
        .target(name: "Interactions", dependencies: ["EventModel", "SystemCalls", "ViewIdentity", "KVCConfig"], path: "Modules/Interactions"),
        // The UIKit-shaped object model and its hooks (aspects on typed hook points).
        .target(name: "Hooks", dependencies: ["EventModel", "SystemCalls", "ViewIdentity", "Interactions"], path: "Modules/Hooks"),
        .target(name: "KVCConfig", dependencies: ["EventModel", "ViewIdentity"], path: "Modules/KVCConfig"),
        // The inventory of a Swift source tree (classes, actions, properties) for `inventory` and `check`.
        .target(name: "SourceInventory", dependencies: ["KVCConfig"], path: "Modules/SourceInventory"),
        .target(name: "Matching", dependencies: ["EventModel", "ViewIdentity", "KVCConfig"], path: "Modules/Matching"),
        // ATLP/1 by role: the wire format alone (no sockets), the client, the server.
        .target(name: "ATLPWire", dependencies: ["EventModel"], path: "Modules/ATLPWire"),
        .target(
            name: "ATLPClient", dependencies: ["EventModel", "Reporters", "ATLPWire", "SystemCalls", "SecureChannel"],
            path: "Modules/ATLPClient"),
        .target(
            name: "ATLPServer", dependencies: ["EventModel", "ATLPWire", "SystemCalls", "SecureChannel", "ConnectionLoop"],
            path: "Modules/ATLPServer"),
        // HTTP/1.1 (the studio's server) on the same system-call layer and TLS plug-in as ATLP.
        .target(name: "HTTPServer", dependencies: ["SystemCalls", "SecureChannel", "ConnectionLoop"], path: "Modules/HTTPServer"),
        // The studio (docs/studio.md): its HTTP API, login and page, over a back-end protocol the collector implements.
        .target(
            name: "Studio", dependencies: ["EventModel", "EventStore", "ViewIdentity", "Analytics", "HTTPServer", "SystemCalls"], path: "Modules/Studio",
            resources: [
                .embedInCode("Resources/studio.html"), .embedInCode("Resources/login.html"), .embedInCode("Resources/studio.css"),
                .embedInCode("Resources/favicon.svg"), .embedInCode("Resources/studio-api.js"), .embedInCode("Resources/studio-pages.js"),
                .embedInCode("Resources/studio-picture.js"), .embedInCode("Resources/studio-definitions.js"), .embedInCode("Resources/studio-insights.js"),
                .embedInCode("Resources/studio-main.js"),
            ]),
        .testTarget(
            name: "StudioTests",
            dependencies: ["Studio", "HTTPServer", "EventModel", "EventStore", "ViewIdentity", "Analytics", "PNGImage", "SystemCalls", "TestSupport"],
            path: "Tests/StudioTests", exclude: ["browser"]),
        .testTarget(
            name: "HTTPServerTests", dependencies: ["HTTPServer", "ATLPTLS", "SecureChannel", "SystemCalls", "TestSupport"],
            path: "Tests/HTTPServerTests"),
        // TLS as a plug-in of the client and the server: only ATLPTLS needs the system's OpenSSL.
        .target(name: "SecureChannel", path: "Modules/SecureChannel"),
        // The one connection loop both servers run on (accept, read, write, limits, linger): not a product.
        .target(name: "ConnectionLoop", dependencies: ["SystemCalls", "SecureChannel"], path: "Modules/ConnectionLoop"),
        .testTarget(
            name: "ConnectionLoopTests", dependencies: ["ConnectionLoop", "SystemCalls"], path: "Tests/ConnectionLoopTests"),
        .systemLibrary(name: "COpenSSL", path: "Modules/COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "ATLPTLS", dependencies: ["COpenSSL", "SecureChannel"], path: "Modules/ATLPTLS"),
        .systemLibrary(name: "CSQLite", path: "Modules/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // The store protocol the collector needs, and the value types every store shares.
        .target(name: "EventStore", dependencies: ["EventModel", "ViewIdentity", "SystemCalls"], path: "Modules/EventStore"),
        .target(name: "StoreSQL", dependencies: ["EventModel", "EventStore"], path: "Modules/StoreSQL"),
        .testTarget(name: "StoreSQLTests", dependencies: ["StoreSQL", "EventStore"], path: "Tests/StoreSQLTests"),
        .target(name: "SQLiteStore", dependencies: ["CSQLite", "EventModel", "EventStore", "StoreSQL", "SystemCalls"], path: "Modules/SQLiteStore"),
        // Funnels, retention, trends and the report's behaviour figures, from the store protocol's scan.
        .target(name: "Analytics", dependencies: ["EventStore", "EventModel"], path: "Modules/Analytics"),
        // Definitions (KVC rules) counted over stored events, also backwards: previews, heatmaps, rule steps.
        .target(
            name: "Definitions", dependencies: ["EventStore", "EventModel", "KVCConfig", "ViewIdentity", "Analytics", "Interactions", "PathDrift"],
            path: "Modules/Definitions"),
        .testTarget(
            name: "AnalyticsTests",
            dependencies: ["Analytics", "Definitions", "KVCConfig", "Collector", "CommandSupport", "EventStore", "SQLiteStore", "StoreSQL", "PostgresStore", "EventModel", "ViewIdentity", "Studio", "SystemCalls", "TestSupport"],
            path: "Tests/AnalyticsTests"),
        .executableTarget(
            name: "analytics-bench", dependencies: ["BenchmarkSupport", "Analytics", "Collector", "Definitions", "KVCConfig", "ViewIdentity", "EventStore", "SQLiteStore", "CSQLite", "TestSupport"],
            path: "Tools/analytics-bench"),
        // The PostgreSQL store: libpq (Debian: libpq-dev) for collectors sharing one database.
        .systemLibrary(name: "CLibPQ", path: "Modules/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "PostgresStore", dependencies: ["CLibPQ", "EventStore", "EventModel", "StoreSQL", "SystemCalls"], path: "Modules/PostgresStore"),
        .target(
            name: "Collector",
            dependencies: [
                "EventModel", "ATLPWire", "ATLPClient", "ATLPServer", "ATLPTLS", "SecureChannel", "SystemCalls", "EventStore",
                "SQLiteStore", "PostgresStore", "KVCConfig", "CommandSupport", "Analytics", "Definitions", "Studio", "HTTPServer", "ViewIdentity",
            ],
            path: "Modules/Collector"),
        // Turns hooked interactions into configured events: the plan, matching, KVC values, reporters.
        .target(
            name: "Tracker",
            dependencies: ["EventModel", "Reporters", "ViewIdentity", "Interactions", "KVCConfig", "Matching", "SystemCalls"],
            path: "Modules/Tracker"),
        // The collector as a tracker's source of rules (CONFIG over ATLP/1).
        .target(
            name: "AgentPipeline",
            dependencies: ["EventModel", "ViewIdentity", "Tracker", "Reporters", "KVCConfig", "ATLPWire", "ATLPClient", "SecureChannel", "SystemCalls"],
            path: "Modules/AgentPipeline"),
        // The simulated shop app the demo drives, built on the Hooks object model.
        .target(
            name: "DemoShop", dependencies: ["EventModel", "ViewIdentity", "Interactions", "Hooks", "PNGImage"], path: "Modules/DemoShop"),
        .target(name: "PNGImage", path: "Modules/PNGImage"),
        .testTarget(name: "PNGImageTests", dependencies: ["PNGImage", "TestSupport"], path: "Tests/PNGImageTests"),
        .target(name: "CommandSupport", dependencies: ["SystemCalls", "SecureChannel", "ATLPTLS"], path: "Modules/CommandSupport"),
        // Rules a new build breaks, and where their views went: trees of two builds, scored candidates.
        .target(name: "PathDrift", dependencies: ["EventModel", "ViewIdentity", "KVCConfig"], path: "Modules/PathDrift"),
        .testTarget(name: "PathDriftTests", dependencies: ["PathDrift", "KVCConfig", "ViewIdentity", "EventModel", "TestSupport"], path: "Tests/PathDriftTests"),
        .target(
            name: "AgentCommands",
            dependencies: [
                "EventModel", "ViewIdentity", "Interactions", "Hooks", "KVCConfig", "SourceInventory", "Matching", "ATLPWire", "ATLPClient", "SystemCalls",
                "Tracker", "AgentPipeline", "DemoShop", "CommandSupport", "PathDrift", "ProgramLaunch",
            ],
            path: "Modules/AgentCommands"),

        .executableTarget(name: "autotrack-agent", dependencies: ["AgentCommands", "CommandSupport", "SystemCalls"], path: "Apps/autotrack-agent"),
        .executableTarget(name: "autotrack-collector", dependencies: ["Collector", "CommandSupport", "SystemCalls"], path: "Apps/autotrack-collector"),

        // GTK 4: the system library, the adapter, the LD_PRELOAD library (its constructor is C), the shop.
        .systemLibrary(name: "CGtk", path: "Modules/CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(
            name: "GtkTracking", dependencies: ["CGtk", "EventModel", "ViewIdentity", "Interactions", "KVCConfig", "SystemCalls"],
            path: "Modules/GtkTracking"),
        .target(name: "ProgramLaunch", dependencies: ["SystemCalls"], path: "Modules/ProgramLaunch"),
        // What every preload library sets up before its toolkit's hooks (toolkit-free).
        .target(
            name: "PreloadPipeline",
            dependencies: [
                "ProgramLaunch", "Tracker", "AgentPipeline", "KVCConfig", "Reporters", "EventModel", "ATLPClient", "ATLPWire", "ATLPTLS",
                "SecureChannel", "CommandSupport", "SystemCalls",
            ],
            path: "Modules/PreloadPipeline"),
        .target(name: "CAutotrackPreload", path: "Modules/CAutotrackPreload"),
        .target(
            name: "AutotrackPreload",
            dependencies: [
                "CAutotrackPreload", "CGtk", "GtkTracking", "PreloadPipeline", "ProgramLaunch", "AgentPipeline", "KVCConfig", "Tracker",
                "SystemCalls",
            ],
            path: "Modules/AutotrackPreload"),
        .target(name: "GtkShop", dependencies: ["CGtk", "SystemCalls"], path: "Modules/GtkShop"),
        .executableTarget(name: "autotrack-gtk-shop", dependencies: ["GtkShop", "SystemCalls"], path: "Apps/autotrack-gtk-shop"),
        .executableTarget(
            name: "gtk-bench", dependencies: ["BenchmarkSupport", "CGtk", "GtkTracking", "Interactions", "Tracker", "KVCConfig", "Reporters", "EventModel"],
            path: "Tools/gtk-bench"),
        .testTarget(
            name: "GtkTrackingTests", dependencies: ["TestSupport", "Collector", "SystemCalls", "ViewIdentity", "EventStore", "EventModel", "SQLiteStore", "CGtk", "GtkTracking"],
            path: "Tests/GtkTrackingTests"),
        // WebKitGTK 6 for the web view test's own sample app (docs/gtk.md "Web views"); the tracking links no WebKit.
        .systemLibrary(name: "CWebKitGtk", path: "Modules/CWebKitGtk", pkgConfig: "webkitgtk-6.0", providers: [.apt(["libwebkitgtk-6.0-dev"])]),
        .executableTarget(name: "gtk-webview-sample", dependencies: ["CWebKitGtk"], path: "Tests/GtkWebViewSample"),

        // Shared test support: fixtures and helpers, not a product.
        .target(
            name: "TestSupport", dependencies: ["EventModel", "ViewIdentity", "EventStore", "KVCConfig", "Matching", "SystemCalls"],
            path: "Tests/TestSupport"),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"], path: "Tests/SystemCallsTests"),
        .testTarget(name: "EventModelTests", dependencies: ["EventModel"], path: "Tests/EventModelTests"),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "EventModel", "SystemCalls", "TestSupport"], path: "Tests/ReportersTests"),
        .testTarget(name: "ViewIdentityTests", dependencies: ["ViewIdentity", "EventModel", "TestSupport"], path: "Tests/ViewIdentityTests"),
        .testTarget(
            name: "InteractionsTests", dependencies: ["Interactions", "EventModel", "ViewIdentity", "KVCConfig"], path: "Tests/InteractionsTests"),
        .testTarget(
            name: "HooksTests", dependencies: ["Hooks", "Interactions", "Reporters", "Tracker", "DemoShop", "EventModel", "KVCConfig", "ViewIdentity"],
            path: "Tests/HooksTests"),
        .testTarget(
            name: "KVCConfigTests", dependencies: ["KVCConfig", "SourceInventory", "EventModel", "ViewIdentity", "TestSupport"],
            path: "Tests/KVCConfigTests"),
        .testTarget(name: "MatchingTests", dependencies: ["Matching", "KVCConfig", "EventModel", "ViewIdentity", "TestSupport"], path: "Tests/MatchingTests"),
        .testTarget(
            name: "TransportTests",
            dependencies: ["ATLPWire", "ATLPClient", "ATLPServer", "ATLPTLS", "SecureChannel", "SystemCalls", "EventModel", "TestSupport"],
            path: "Tests/TransportTests"),
        .testTarget(
            name: "EventStoreTests", dependencies: ["EventStore", "SQLiteStore", "StoreSQL", "EventModel", "ATLPWire", "SystemCalls", "TestSupport"],
            path: "Tests/EventStoreTests"),
        .testTarget(
            name: "TrackerTests",
            dependencies: ["Tracker", "DemoShop", "Reporters", "Interactions", "Hooks", "KVCConfig", "EventModel", "ViewIdentity", "TestSupport"],
            path: "Tests/TrackerTests"),
        .testTarget(
            name: "AgentPipelineTests",
            dependencies: [
                "AgentPipeline", "Tracker", "Collector", "ViewIdentity", "EventStore", "SystemCalls", "ATLPWire", "ATLPClient", "DemoShop", "Hooks",
                "KVCConfig", "Reporters", "EventModel", "AgentCommands", "CommandSupport", "TestSupport",
            ],
            path: "Tests/AgentPipelineTests"),
        .testTarget(
            name: "CollectorTests",
            dependencies: [
                "Collector", "CommandSupport", "EventStore", "SQLiteStore", "EventModel", "KVCConfig", "ATLPWire", "ATLPClient",
                "SystemCalls", "Studio", "Analytics", "Definitions", "TestSupport",
            ],
            path: "Tests/CollectorTests"),
        .testTarget(
            name: "AgentCommandsTests",
            dependencies: [
                "AgentCommands", "Collector", "CommandSupport", "EventStore", "EventModel", "SQLiteStore", "ProgramLaunch", "Tracker",
                "KVCConfig", "SystemCalls", "ViewIdentity", "TestSupport",
            ],
            path: "Tests/AgentCommandsTests"),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                "PostgresStore", "EventStore", "Analytics", "SQLiteStore", "EventModel", "Collector", "CommandSupport", "ATLPWire", "ATLPClient",
                "StoreSQL", "TestSupport",
            ],
            path: "Tests/PostgresStoreTests"),
        // End-to-end: runs the built executables as real processes.
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "EventModel", "SystemCalls"], path: "Tests/EndToEndTests"),

        // Benchmarks: run in release (`swift run -c release <name>`), each reports a ratio to a baseline.
        // What every benchmark shares (clocks, rounds, medians, load average, ratios, output): not a product.
        .target(name: "BenchmarkSupport", dependencies: ["SystemCalls"], path: "Tools/BenchmarkSupport"),
        .executableTarget(name: "json-bench", dependencies: ["BenchmarkSupport", "EventModel"], path: "Tools/json-bench"),
        .executableTarget(name: "md5-bench", dependencies: ["BenchmarkSupport", "SystemCalls", "ViewIdentity"], path: "Tools/md5-bench"),
        .executableTarget(name: "viewpath-bench", dependencies: ["BenchmarkSupport", "ViewIdentity"], path: "Tools/viewpath-bench"),
        .executableTarget(name: "hooks-bench", dependencies: ["BenchmarkSupport", "Interactions", "Hooks", "Reporters", "Tracker"], path: "Tools/hooks-bench"),
        .executableTarget(
            name: "kvc-bench", dependencies: ["BenchmarkSupport", "DemoShop", "EventModel", "Hooks", "KVCConfig", "ViewIdentity"],
            path: "Tools/kvc-bench"),
        .executableTarget(name: "match-bench", dependencies: ["BenchmarkSupport", "Matching", "KVCConfig", "EventModel", "ViewIdentity", "SystemCalls", "TestSupport"], path: "Tools/match-bench"),
        .executableTarget(name: "http-bench", dependencies: ["BenchmarkSupport", "HTTPServer", "SystemCalls"], path: "Tools/http-bench"),
        .executableTarget(
            name: "transport-bench", dependencies: ["BenchmarkSupport", "EventModel", "ATLPWire", "ATLPClient", "ATLPServer", "SystemCalls"],
            path: "Tools/transport-bench"),
        .executableTarget(
            name: "pipeline-bench",
            dependencies: [
                "BenchmarkSupport", "EventModel", "ATLPWire", "ATLPClient", "ATLPServer", "SystemCalls", "Collector", "EventStore", "SQLiteStore",
                "TestSupport",
            ],
            path: "Tools/pipeline-bench"),
        .executableTarget(
            name: "ingest-bench",
            dependencies: ["BenchmarkSupport", "ATLPWire", "ATLPClient", "SystemCalls", "Collector", "EventModel", "EventStore", "SQLiteStore", "TestSupport"],
            path: "Tools/ingest-bench"),
        .executableTarget(
            name: "slowloris-probe", dependencies: ["BenchmarkSupport", "ATLPWire", "ATLPClient", "ATLPServer", "SystemCalls"],
            path: "Tools/slowloris-probe"),
        .executableTarget(
            name: "snapshot-memory-bench", dependencies: ["BenchmarkSupport", "ATLPWire", "ATLPClient", "EventModel", "SystemCalls"],
            path: "Tools/snapshot-memory-bench"),
        .executableTarget(
            name: "store-bench", dependencies: ["BenchmarkSupport", "EventStore", "SQLiteStore", "PostgresStore", "EventModel", "TestSupport"],
            path: "Tools/store-bench"),
        .executableTarget(
            name: "pg-bench", dependencies: ["BenchmarkSupport", "Analytics", "CLibPQ", "Collector", "EventModel", "EventStore", "PostgresStore", "SystemCalls", "TestSupport"],
            path: "Tools/pg-bench"),
    ],
    swiftLanguageModes: [.v6]
)

// GNUstep (docs/objc.md): the Objective-C runtime seam, the AppKit adapter and its preload library.
// Only these targets need GNUstep's headers and libraries (Tools/setup.sh installs them); the
// Objective-C shim is compiled by the toolchain's clang for GCC's runtime.
let gnustepObjCFlags: [String] = [
    "-fobjc-runtime=gcc", "-fno-blocks", "-fobjc-exceptions", "-fexceptions", "-DGNUSTEP", "-DGNUSTEP_BASE_LIBRARY=1", "-DGNU_GUI_LIBRARY=1",
    "-DGNU_RUNTIME=1", "-D_NATIVE_OBJC_EXCEPTIONS", "-fconstant-string-class=NSConstantString", "-I/usr/include/GNUstep",
    "-idirafter", "/usr/lib/gcc/x86_64-linux-gnu/12/include", "-Wno-cast-of-sel-type", "-Wno-deprecated-declarations",
]
let gnustepLinking: [LinkerSetting] = [
    .unsafeFlags(["-L/usr/lib/gcc/x86_64-linux-gnu/12"]), .linkedLibrary("objc"), .linkedLibrary("gnustep-base"),
]
package.products += [
    .library(name: "ObjCRuntime", targets: ["ObjCRuntime"]),
    .library(name: "AppKitTracking", targets: ["AppKitTracking"]),
    .library(name: "AutotrackObjCPreload", type: .dynamic, targets: ["AutotrackObjCPreload"]),
]
package.targets += [
    .target(name: "CObjCRuntime", path: "Modules/CObjCRuntime", cSettings: [.unsafeFlags(gnustepObjCFlags)], linkerSettings: gnustepLinking),
    .target(name: "ObjCRuntime", dependencies: ["CObjCRuntime"], path: "Modules/ObjCRuntime"),
    .target(
        name: "AppKitTracking", dependencies: ["ObjCRuntime", "EventModel", "ViewIdentity", "Interactions", "KVCConfig", "SystemCalls"],
        path: "Modules/AppKitTracking"),
    .target(name: "CAutotrackObjCPreload", path: "Modules/CAutotrackObjCPreload"),
    .target(
        name: "AutotrackObjCPreload",
        dependencies: [
            "CAutotrackObjCPreload", "ObjCRuntime", "AppKitTracking", "PreloadPipeline", "ProgramLaunch", "AgentPipeline", "Tracker",
            "SystemCalls",
        ],
        path: "Modules/AutotrackObjCPreload"),
    // Runs the runtime layer's and the Aspects' cases in a process of its own (GNUstep is never
    // loaded into the test runner); ObjCRuntimeTests asserts what it reports.
    .target(name: "CObjCTestClasses", path: "Tests/CObjCTestClasses", cSettings: [.unsafeFlags(gnustepObjCFlags)], linkerSettings: gnustepLinking),
    .executableTarget(name: "objc-runtime-checks", dependencies: ["ObjCRuntime", "CObjCTestClasses"], path: "Tests/ObjCRuntimeChecks"),
    // An AppKit app made for the tests: the controls the Debian apps lack.
    .target(
        name: "CObjCFixtureApp", path: "Tests/CObjCFixtureApp", cSettings: [.unsafeFlags(gnustepObjCFlags)],
        linkerSettings: gnustepLinking + [.linkedLibrary("gnustep-gui")]),
    .executableTarget(name: "objc-fixture-app", dependencies: ["CObjCFixtureApp"], path: "Tests/ObjCFixtureApp"),
    // The cost the AppKit hooks add to one target-action (docs/performance.md).
    .target(
        name: "CObjCBench", path: "Tools/CObjCBench", cSettings: [.unsafeFlags(gnustepObjCFlags)],
        linkerSettings: gnustepLinking + [.linkedLibrary("gnustep-gui")]),
    .executableTarget(
        name: "objc-bench",
        dependencies: ["BenchmarkSupport", "CObjCBench", "ObjCRuntime", "AppKitTracking", "Interactions", "Tracker", "KVCConfig", "Reporters", "EventModel", "ViewIdentity"],
        path: "Tools/objc-bench"),
    .testTarget(
        name: "ObjCRuntimeTests", dependencies: ["TestSupport", "Collector", "SystemCalls", "EventModel", "EventStore", "ViewIdentity"],
        path: "Tests/ObjCRuntimeTests"),
]

// Shared settings for every target.
for target in package.targets where target.type != .system && target.name != "CSystemCalls" {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}

// Every Swift target's imports say what they are: each file imports the modules whose members it uses,
// and only imports that show in public API are `public import` (in package API, `package import`).
// Swift targets are all but the system libraries and our C targets (named `C` + a capital: `CSystemCalls`, `CObjCBench`).
let isCTarget = { (name: String) in name.count > 1 && name.first == "C" && name.dropFirst().first!.isUppercase }
for target in package.targets where target.type != .system && !isCTarget(target.name) {
    target.swiftSettings! += [.enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("InternalImportsByDefault")]
}
