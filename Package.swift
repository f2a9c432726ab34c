// swift-tools-version: 6.0
// Autotrack: codeless user-behaviour tracking for Swift apps, and the collector that receives it.
// No package dependencies: only the toolchain and the system's SQLite.
import PackageDescription

let package = Package(
    name: "Autotrack",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EventModel", targets: ["EventModel"]),
        .library(name: "Reporters", targets: ["Reporters"]),
        .library(name: "ViewIdentity", targets: ["ViewIdentity"]),
        .library(name: "Hooks", targets: ["Hooks"]),
        .library(name: "KVCConfig", targets: ["KVCConfig"]),
        .library(name: "Matching", targets: ["Matching"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "EventStore", targets: ["EventStore"]),
        .library(name: "Collector", targets: ["Collector"]),
        .library(name: "Tracker", targets: ["Tracker"]),
        .library(name: "DemoShop", targets: ["DemoShop"]),
        .library(name: "CommandSupport", targets: ["CommandSupport"]),
        .library(name: "AgentCommands", targets: ["AgentCommands"]),
        .executable(name: "autotrack-agent", targets: ["autotrack-agent"]),
        .executable(name: "autotrack-collector", targets: ["autotrack-collector"]),
        // GTK 4 (docs/gtk.md): only these targets need libgtk-4-dev.
        .library(name: "GtkTracking", targets: ["GtkTracking"]),
        .library(name: "AutotrackPreload", type: .dynamic, targets: ["AutotrackPreload"]),
        .library(name: "GtkShop", targets: ["GtkShop"]),
        .executable(name: "autotrack-gtk-shop", targets: ["autotrack-gtk-shop"]),
    ],
    targets: [
        // What every module speaks: the event value and JSON values.
        .target(
            name: "EventModel", path: "Modules/EventModel",
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // The plugin point where events go.
        .target(name: "Reporters", dependencies: ["EventModel"], path: "Modules/Reporters"),
        .target(name: "ViewIdentity", dependencies: ["EventModel"], path: "Modules/ViewIdentity"),
        .target(name: "Hooks", dependencies: ["EventModel", "Reporters", "ViewIdentity"], path: "Modules/Hooks"),
        .target(name: "KVCConfig", dependencies: ["EventModel", "ViewIdentity"], path: "Modules/KVCConfig"),
        .target(name: "Matching", dependencies: ["EventModel", "ViewIdentity", "KVCConfig"], path: "Modules/Matching"),
        .target(name: "Transport", dependencies: ["EventModel", "Reporters"], path: "Modules/Transport"),
        .systemLibrary(name: "CSQLite", path: "Modules/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "EventStore", dependencies: ["CSQLite", "EventModel"], path: "Modules/EventStore"),
        .target(
            name: "Collector",
            dependencies: ["EventModel", "Transport", "EventStore", "KVCConfig", "Matching", "CommandSupport"],
            path: "Modules/Collector"),
        // Turns hooked interactions into configured events: the plan, matching, KVC values, reporters.
        .target(
            name: "Tracker",
            dependencies: ["EventModel", "Reporters", "ViewIdentity", "Hooks", "KVCConfig", "Matching"],
            path: "Modules/Tracker"),
        // The simulated shop app the demo drives, built on the Hooks object model.
        .target(
            name: "DemoShop", dependencies: ["EventModel", "Reporters", "ViewIdentity", "Hooks"], path: "Modules/DemoShop"),
        .target(name: "CommandSupport", path: "Modules/CommandSupport"),
        .target(
            name: "AgentCommands",
            dependencies: [
                "EventModel", "Reporters", "ViewIdentity", "Hooks", "KVCConfig", "Matching", "Transport",
                "Collector", "Tracker", "DemoShop", "CommandSupport", "ProgramLaunch",
            ],
            path: "Modules/AgentCommands"),

        .executableTarget(name: "autotrack-agent", dependencies: ["AgentCommands"], path: "Apps/autotrack-agent"),
        .executableTarget(name: "autotrack-collector", dependencies: ["Collector"], path: "Apps/autotrack-collector"),

        // GTK 4: the system library, the adapter, the LD_PRELOAD library (its constructor is C), the shop.
        .systemLibrary(name: "CGtk", path: "Modules/CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(
            name: "GtkTracking", dependencies: ["CGtk", "EventModel", "ViewIdentity", "Hooks", "KVCConfig"],
            path: "Modules/GtkTracking"),
        .target(name: "ProgramLaunch", path: "Modules/ProgramLaunch"),
        .target(name: "CAutotrackPreload", path: "Modules/CAutotrackPreload"),
        .target(
            name: "AutotrackPreload",
            dependencies: [
                "CAutotrackPreload", "CGtk", "GtkTracking", "ProgramLaunch", "EventModel", "Reporters", "KVCConfig",
                "Tracker", "Transport",
            ],
            path: "Modules/AutotrackPreload"),
        .target(name: "GtkShop", dependencies: ["CGtk"], path: "Modules/GtkShop"),
        .executableTarget(name: "autotrack-gtk-shop", dependencies: ["GtkShop"], path: "Apps/autotrack-gtk-shop"),
        .testTarget(
            name: "GtkTrackingTests", dependencies: ["TestSupport", "Collector", "Transport", "ViewIdentity"],
            path: "Tests/GtkTrackingTests"),

        // Shared test support: fixtures and helpers, not a product.
        .target(name: "TestSupport", dependencies: ["EventModel", "ViewIdentity"], path: "Tests/TestSupport"),
        .testTarget(name: "EventModelTests", dependencies: ["EventModel"], path: "Tests/EventModelTests"),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "TestSupport"], path: "Tests/ReportersTests"),
        .testTarget(name: "ViewIdentityTests", dependencies: ["ViewIdentity", "TestSupport"], path: "Tests/ViewIdentityTests"),
        .testTarget(name: "HooksTests", dependencies: ["Hooks", "Reporters", "DemoShop", "TestSupport"], path: "Tests/HooksTests"),
        .testTarget(name: "KVCConfigTests", dependencies: ["KVCConfig", "TestSupport"], path: "Tests/KVCConfigTests"),
        .testTarget(name: "MatchingTests", dependencies: ["Matching", "KVCConfig", "TestSupport"], path: "Tests/MatchingTests"),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "TestSupport"], path: "Tests/TransportTests"),
        .testTarget(name: "EventStoreTests", dependencies: ["EventStore", "TestSupport"], path: "Tests/EventStoreTests"),
        .testTarget(
            name: "TrackerTests", dependencies: ["Tracker", "DemoShop", "Reporters", "TestSupport"],
            path: "Tests/TrackerTests"),
        .testTarget(name: "CollectorTests", dependencies: ["Collector", "Transport", "TestSupport"], path: "Tests/CollectorTests"),
        .testTarget(
            name: "AgentCommandsTests", dependencies: ["AgentCommands", "CommandSupport", "TestSupport"],
            path: "Tests/AgentCommandsTests"),
        // End-to-end: runs the built executables as real processes.
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport"], path: "Tests/EndToEndTests"),

        // Benchmarks: run in release (`swift run -c release <name>`), each reports a ratio to a baseline.
        .executableTarget(name: "json-bench", dependencies: ["EventModel"], path: "Tools/json-bench"),
        .executableTarget(name: "md5-bench", dependencies: ["ViewIdentity"], path: "Tools/md5-bench"),
        .executableTarget(name: "viewpath-bench", dependencies: ["ViewIdentity"], path: "Tools/viewpath-bench"),
        .executableTarget(name: "hooks-bench", dependencies: ["Hooks", "Reporters"], path: "Tools/hooks-bench"),
        .executableTarget(name: "match-bench", dependencies: ["Matching", "KVCConfig", "TestSupport"], path: "Tools/match-bench"),
        .executableTarget(name: "transport-bench", dependencies: ["Transport"], path: "Tools/transport-bench"),
        .executableTarget(
            name: "pipeline-bench", dependencies: ["Transport", "Collector", "EventStore"], path: "Tools/pipeline-bench"),
    ],
    swiftLanguageModes: [.v6]
)

// Shared settings for every target.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
