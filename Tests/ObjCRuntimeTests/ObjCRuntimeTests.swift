import Foundation
import Testing
import TestSupport

/// The runtime layer on real Objective-C classes compiled for the tests, run in a process of its
/// own (`objc-runtime-checks`) so GNUstep never loads into the test runner.
@Suite struct ObjCRuntimeTests {
    static func facts(_ arguments: [String] = [], environment extra: [String: String] = [:]) throws -> [String: String] {
        let tool = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/objc-runtime-checks").path
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in extra { environment[k] = v }
        let p = try GUIProcess(tool, arguments, environment: environment)
        let status = try p.waitForExit(within: 60)
        #expect(status == 0, "stderr: \(p.standardError.suffix(2000))")
        var out: [String: String] = [:]
        for line in p.standardOutput.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            out[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return out
    }

    @Test func lookupsMessagesAndCaughtExceptions() throws {
        let f = try Self.facts()
        #expect(f["classes"] == "ATRCounter,ATRSubCounter,ATRCounter")
        #expect(f["unknownClass"] == "true")
        #expect(f["className"] == "ATRCounter")
        // Not an ATRSubCounter, an ATRCounter, never a missing class, an NSObject: bits 1 and 3.
        #expect(f["kinds"] == "10")
        #expect(f["classNamesTable"] == "true,1000,again,true,true")
        #expect(f["label"] == "counter")
        #expect(f["isReady"] == "true")
        #expect(f["frame"] == "1.0,2.0,3.0,4.0")
        #expect(f["fail"] == "raised:ATRTestException")
        #expect(f["unrecognized"] == "raised")
        #expect(f["kvcName"] == "ada")
        #expect(f["kvcMissing"] == "raised:NSUnknownKeyException")
        #expect(f["raise"] == "+[NSException raise:format:] raised ATRCheck: because")
    }

    @Test func hooksRunAdviceAroundTheOriginal() throws {
        let f = try Self.facts()
        #expect(f["tickTrace"] == "before,after")
        #expect(f["ticks"] == "1")
        #expect(f["tickTraceAfterRemove"] == "before,after")
        #expect(f["ticksAfterRemove"] == "2")
        #expect(f["labelInstead"] == "replaced")
        #expect(f["subLabel"] == "sub")
        #expect(f["labelRestored"] == "counter")
        #expect(f["addSeen"] == "5,7")
        #expect(f["total"] == "12")
    }

    @Test func hooksSayWhyTheyCannotBeInstalled() throws {
        let f = try Self.facts()
        #expect(f["hookUnknown"] == "unknownSelector")
        #expect(f["hookRetain"] == "forbidden")
        #expect(f["hookForward"] == "forbidden")
        #expect(f["hookRect"] == "unsupportedSignature")
        #expect(f["hookTwiceSub"] == "alreadyHooked")
        #expect(f["hookAfterRemove"] == "installed")
    }

    /// Aspects on real classes: per class and per object, instead skipping the
    /// original, tokens, advice that goes with its object, a class hooked when it loads.
    @Test func aspectsBeforeAfterInsteadPerClassAndPerObject() throws {
        let f = try Self.facts()
        #expect(f["aspectTrace"] == "before1,insteadA1,after1,before2,after2")
        #expect(f["aspectTotals"] == "0,2", "the instead advice replaced a's add:, b's ran")
        #expect(f["aspectCount"] == "3")
        #expect(f["aspectAfterRemove"] == "after3")
        #expect(f["aspectCountAfterDealloc"] == "1")
        #expect(f["tokenAfterDealloc"] == "false")
        #expect(f["aspectCountAtEnd"] == "0")
        #expect(f["aspectForbidden"]?.contains("must not be hooked") == true, "\(f["aspectForbidden"] ?? "")")
        #expect(f["aspectUnknown"]?.contains("no such instance method") == true, "\(f["aspectUnknown"] ?? "")")
        #expect(f["pendingBeforeLoad"] == "true,false")
        #expect(f["guiLoaded"] == "true")
        #expect(f["pendingAfterLoad"] == "true")
        #expect(f["loadedTitles"] == "Buy")
    }

    /// GNUstep base exports `_Block_*` functions of its own; with the toolchain's blocks runtime
    /// loaded first (as `autotrack-agent run` does for GNUstep programs) Dispatch's blocks run.
    @Test func dispatchBlocksRunWithTheToolchainsBlocksRuntimeFirst() throws {
        let blocks = "/opt/swift/usr/lib/swift/linux/libBlocksRuntime.so"
        let runtime = FileManager.default.fileExists(atPath: blocks)
            ? blocks : (try #require(Self.toolchainBlocksRuntime(), "the toolchain's libBlocksRuntime.so"))
        let f = try Self.facts(["--dispatch"], environment: ["LD_PRELOAD": runtime])
        #expect(f["dispatched"] == "20,20")
    }

    /// The toolchain's `libBlocksRuntime.so`, beside its `libdispatch.so`, found from `swift`'s path.
    static func toolchainBlocksRuntime() -> String? {
        guard let swift = VirtualDisplay.executable("swift") else { return nil }
        let bin = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
        let path = bin.deletingLastPathComponent().appendingPathComponent("lib/swift/linux/libBlocksRuntime.so").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
