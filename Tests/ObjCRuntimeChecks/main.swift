import CObjCTestClasses
import Dispatch
import Synchronization
import ObjCRuntime

// Runs the runtime layer's cases on Objective-C classes compiled for them (Tests/CObjCTestClasses),
// in a process of its own, and prints what it observed as `name=value` lines; ObjCRuntimeTests
// asserts them. GNUstep is loaded here, never into the test runner.

func say(_ name: String, _ value: Any) { print("\(name)=\(value)") }

guard atrtest_classes_ready() == 1, let counterClass = ObjCClass.named("ATRCounter"), let subClass = ObjCClass.named("ATRSubCounter") else {
    say("classes", "missing")
    atrtest_exit(1)
}
say("classes", "\(counterClass.name),\(subClass.name),\(subClass.superclass?.name ?? "-")")
say("unknownClass", ObjCClass.named("NoSuchClassAnywhere") == nil)

// The class-name table: aligned addresses close together, as the allocator hands classes out.
do {
    var table = RuntimeClassTable<String>()
    let keys = (1...1_000).map { UInt(0x5555_0000_1000) + UInt($0) * 64 }
    for (n, k) in keys.enumerated() { table[k] = "C\(n)" }
    let allFound = keys.enumerated().allSatisfy { table[$1] == "C\($0)" }
    table[keys[0]] = "again"
    say("classNamesTable", "\(allFound),\(table.count),\(table[keys[0]] ?? "nil"),\(table[0x5555_0000_1000] == nil),\(table[keys[0] + 8] == nil)")
}

withAutoreleasePool {
    let counter = ObjCObject(atrtest_new_counter())!
    defer { counter.release() }
    say("className", counter.className)
    say("kinds", counter.kinds(of: ObjCClassList([subClass, counterClass, nil, ObjCClass.named("NSObject")])).bits)
    say("label", (try? counter.send("label"))??.string ?? "nil")
    say("isReady", (try? counter.bool("isReady")) ?? false)
    let frame = try? counter.rect("frame")
    say("frame", frame.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "nil")

    // Exceptions are caught in the shim and come back as errors.
    do throws(ObjCError) {
        try counter.sendVoid("fail")
        say("fail", "returned")
    } catch {
        say("fail", "\(error.code.rawValue):\(error.exceptionName ?? "")")
    }
    do throws(ObjCError) {
        _ = try counter.send("noSuchMethod")
        say("unrecognized", "returned")
    } catch {
        say("unrecognized", error.code.rawValue)
    }

    // Real KVC: a set key, a missing key.
    try? counter.sendVoid("setName:", ObjCObject.string("ada"))
    say("kvcName", (try? counter.value(forKeyPath: "name"))??.string ?? "nil")
    do throws(ObjCError) {
        _ = try counter.value(forKeyPath: "nosuchkey")
        say("kvcMissing", "returned")
    } catch {
        say("kvcMissing", "\(error.code.rawValue):\(error.exceptionName ?? "")")
    }

    // Hooks: before and after around the original, which runs.
    var trace: [String] = []
    do throws(ObjCError) {
        let hook = try MethodHook(cls: counterClass, selector: "tick") { phase, _ in
            trace.append(phase == .before ? "before" : "after")
            return false
        }
        try counter.sendVoid("tick")
        say("tickTrace", trace.joined(separator: ","))
        say("ticks", atrtest_ticks(counter.pointer))
        hook.remove()
        try counter.sendVoid("tick")
        say("tickTraceAfterRemove", trace.joined(separator: ","))
        say("ticksAfterRemove", atrtest_ticks(counter.pointer))
    } catch {
        say("tickHook", "\(error)")
    }

    // Instead: the original is skipped and the advice sets the result.
    do throws(ObjCError) {
        let hook = try MethodHook(cls: counterClass, selector: "label") { phase, call in
            guard phase == .before else { return false }
            call.objectResult = ObjCObject.string("replaced")
            return true
        }
        say("labelInstead", (try? counter.send("label"))??.string ?? "nil")
        // A subclass with its own implementation is not advised by its superclass's hook.
        let sub = ObjCObject(atrtest_new_sub_counter())!
        say("subLabel", (try? sub.send("label"))??.string ?? "nil")
        sub.release()
        hook.remove()
        say("labelRestored", (try? counter.send("label"))??.string ?? "nil")
    } catch {
        say("labelHook", "\(error)")
    }

    // After advice reads the arguments and the original's result.
    do throws(ObjCError) {
        var seen: [Int] = []
        let hook = try MethodHook(cls: counterClass, selector: "add:") { phase, call in
            if phase == .after { seen.append(call.integer(at: 0)) }
            return false
        }
        _ = try? counter.send("add:", 5)
        _ = try? counter.send("add:", 7)
        say("addSeen", seen.map(String.init).joined(separator: ","))
        say("total", (try? counter.integer("total")) ?? -1)
        hook.remove()
    } catch {
        say("addHook", "\(error)")
    }

    // Clear errors.
    func attempt(_ name: String, _ selector: ObjCSelector, on cls: ObjCClass = counterClass) {
        do throws(ObjCError) {
            let h = try MethodHook(cls: cls, selector: selector) { _, _ in false }
            h.remove()
            say(name, "installed")
        } catch {
            say(name, error.code.rawValue)
        }
    }
    attempt("hookUnknown", "noSuchSelector:")
    attempt("hookRetain", "retain")
    attempt("hookForward", "forwardInvocation:")
    attempt("hookRect", "frame")
    do throws(ObjCError) {
        let first = try MethodHook(cls: counterClass, selector: "isReady") { _, _ in false }
        attempt("hookTwiceSub", "isReady", on: subClass)
        first.remove()
        attempt("hookAfterRemove", "isReady", on: subClass)
    } catch {
        say("hookTwiceSub", "\(error)")
    }
}

// Aspects: per class, per object, tokens, object lifetime, classes that load later.
withAutoreleasePool {
    var trace: [String] = []
    let a = ObjCObject(atrtest_new_counter())!
    let b = ObjCObject(atrtest_new_counter())!
    do throws(ObjCError) {
        let before = try Aspects.hook(counterClass, "add:", .before) { call in trace.append("before\(call.integer(at: 0))") }
        let after = try Aspects.hook(counterClass, "add:", .after) { call in trace.append("after\(call.integer(at: 0))") }
        let onlyA = try Aspects.hook(object: a, "add:", .instead) { call in trace.append("insteadA\(call.integer(at: 0))") }
        _ = try a.send("add:", 1)
        _ = try b.send("add:", 2)
        say("aspectTrace", trace.joined(separator: ","))
        say("aspectTotals", "\(try a.integer("total")),\(try b.integer("total"))")
        say("aspectCount", Aspects.installedCount)
        before.remove()
        before.remove()
        trace = []
        _ = try b.send("add:", 3)
        say("aspectAfterRemove", trace.joined(separator: ","))
        // The object's advice goes with the object.
        a.release()
        say("aspectCountAfterDealloc", Aspects.installedCount)
        say("tokenAfterDealloc", onlyA.isActive)
        after.remove()
        say("aspectCountAtEnd", Aspects.installedCount)
        b.release()
    } catch {
        say("aspects", "\(error)")
    }
    do throws(ObjCError) {
        _ = try Aspects.hook(counterClass, "release", .before) { _ in }
        say("aspectForbidden", "installed")
    } catch {
        say("aspectForbidden", error.description)
    }
    do throws(ObjCError) {
        _ = try Aspects.hook(counterClass, "noSuch:", .before) { _ in }
        say("aspectUnknown", "installed")
    } catch {
        say("aspectUnknown", error.description)
    }
    // A class registered after the hook was asked for: AppKit's menu items, loaded with gnustep-gui.
    do throws(ObjCError) {
        var titles: [String] = []
        let pending = try Aspects.hook(className: "NSMenuItem", "title", .after) { call in
            titles.append(call.objectResult?.string ?? "nil")
        }
        say("pendingBeforeLoad", "\(ObjCClass.named("NSMenuItem") == nil),\(pending.isActive)")
        say("guiLoaded", atrtest_load_library("libgnustep-gui.so.0.29") == 1)
        say("pendingAfterLoad", pending.isActive)
        if let itemClass = ObjCClass.named("NSMenuItem"), let item = try ObjCObject(itemClass.pointer).send("alloc"),
            let ready = try item.send("init")
        {
            try ready.sendVoid("setTitle:", ObjCObject.string("Buy"))
            _ = try ready.send("title")
            ready.release()
        }
        say("loadedTitles", titles.joined(separator: ","))
        pending.remove()
    } catch {
        say("pending", "\(error)")
    }
}

// Raising from the shim itself.
withAutoreleasePool {
    say("raise", ObjCError.raiseAndCatch(name: "ATRCheck", reason: "because")?.description ?? "nil")
}

// Dispatch's blocks beside GNUstep base (docs/objc.md "Dispatch"): asynchronous blocks on a
// serial queue, waited for with a semaphore.
if CommandLine.arguments.contains("--dispatch") {
    let queue = DispatchQueue(label: "objc-runtime-checks")
    let done = DispatchSemaphore(value: 0)
    let count = Mutex(0)
    for _ in 0..<20 {
        queue.async {
            count.withLock { $0 += 1 }
            done.signal()
        }
    }
    var waited = 0
    for _ in 0..<20 where done.wait(timeout: .now() + .seconds(5)) == .success { waited += 1 }
    say("dispatched", "\(count.withLock { $0 }),\(waited)")
}
