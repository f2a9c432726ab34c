import Collector
import EventModel
import EventStore
import Foundation
import SystemCalls
import Testing
import TestSupport
import ViewIdentity

/// Unmodified GNUstep apps from Debian, tracked through the real `autotrack-agent run` into a
/// real collector (loopback, ephemeral port), driven by real input under Xvfb.
@Suite(.serialized) struct GNUstepAppTrackingTests {
    static let edenMath = "/usr/lib/GNUstep/Applications/EdenMath.app/EdenMath"

    /// The agent running `program` under `display`, shipping to `collector`, writing page trees.
    final class TrackedApp {
        let process: GUIProcess
        let trees: URL
        let home: URL

        init(
            program: String, appKey: String, display: VirtualDisplay, collector: SocketAddress, directory: URL, config: URL?,
            options: [String] = [], arguments: [String] = [], environment extra: [String: String] = [:]
        ) throws {
            trees = directory.appendingPathComponent("trees")
            home = directory.appendingPathComponent("home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let agent = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/autotrack-agent").path
            process = try GUIProcess(
                agent,
                [
                    "run", "--to", collector.description, "--app-key", appKey, "--tree-dir", trees.path,
                    "--spool", directory.appendingPathComponent("spool").path,
                ] + (config.map { ["--config", $0.path] } ?? []) + options + [
                    "--", program,
                ] + arguments,
                environment: display.environment(extra.merging(["HOME": home.path]) { a, _ in a }))
        }

        deinit {
            process.kill()
            // GNUstep's notification daemon, started by the app for this HOME, goes too.
            for pid in Self.daemons(home: home.path) { try? Posix.sendSignal(SIGTERM, to: pid) }
        }

        /// `gdnc` and `gpbs` processes whose HOME is `home`.
        static func daemons(home: String) -> [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).filter { pid in
                let comm = (FileHandle(forReadingAtPath: "/proc/\(pid)/comm")?.readDataToEndOfFile()).map { String(decoding: $0, as: UTF8.self) } ?? ""
                guard comm.hasPrefix("gdnc") || comm.hasPrefix("gpbs") else { return false }
                let env = FileHandle(forReadingAtPath: "/proc/\(pid)/environ")?.readDataToEndOfFile() ?? Data()
                return env.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "HOME=" + home }
            }
        }

        /// The tree of `page` as written (newer than `since`, when given), within 60 s: a GNUstep
        /// app's first start for a new HOME (its defaults, fonts, `gdnc`) can take tens of seconds
        /// on a loaded 2-core machine while other suites run. A failure says the app's standard error.
        func tree(_ page: String, newerThan since: Date? = nil) throws -> WidgetTree {
            do {
                return try WidgetTree.wait(directory: trees, page: page, newerThan: since, within: 60)
            } catch {
                throw HarnessFailure("\(error); the app's stderr: \(process.standardError.suffix(3000))")
            }
        }

        /// The X window showing the page whose tree is `tree` (same size as its root's frame).
        func window(for tree: WidgetTree, on display: VirtualDisplay, titled title: String) throws -> String {
            guard let frame = tree.root["frame"] as? [NSNumber], frame.count == 4 else { throw HarnessFailure("the page has no frame") }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let ids = ((try? display.xdotool(["search", "--onlyvisible", "--name", title])) ?? "").split(separator: "\n")
                for id in ids {
                    let geometry = (try? display.xdotool(["getwindowgeometry", String(id)])) ?? ""
                    guard geometry.contains("\(frame[2].intValue)x\(frame[3].intValue)") else { continue }
                    // GNUstep may still move a window it has just mapped: clicks are aimed once its
                    // place has held for 0.3 s.
                    var last = geometry
                    while Date() < deadline {
                        Thread.sleep(forTimeInterval: 0.3)
                        let now = (try? display.xdotool(["getwindowgeometry", String(id)])) ?? ""
                        if now == last { return String(id) }
                        last = now
                    }
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            throw HarnessFailure("no window of \(frame[2])x\(frame[3]) titled \(title)")
        }

        /// A press, ~150 ms, a release at the centre of `node` (GNUstep wants the two apart).
        func click(_ node: [String: Any], window: String, on display: VirtualDisplay) throws {
            let c = try WidgetTree.center(node)
            try display.xdotool(["mousemove", "--window", window, String(c.x), String(c.y), "mousedown", "1", "sleep", "0.15", "mouseup", "1"])
            Thread.sleep(forTimeInterval: 0.3)
        }
    }

    /// A test's directory, collector (loopback, ephemeral port) and X display; `stop()` ends them.
    final class Harness {
        let dir: URL
        let db: String
        let collector: EmbeddedCollector
        let address: SocketAddress
        let display: VirtualDisplay

        /// By default the collector takes the pictures of `--snapshots` agents (`serve --accept-snapshots`).
        /// With `studio`, the studio listens too (loopback, ephemeral port), its admin token `admin`.
        init(_ label: String, access: CollectorAccess = CollectorAccess(acceptsUnaskedSnapshots: true), studio: Bool = false) throws {
            dir = Fixtures.temporaryDirectory(label)
            db = dir.appendingPathComponent("events.sqlite").path
            var options = EmbeddedCollector.Options()
            options.access = access
            if studio {
                options.access.adminToken = "admin"
                options.studio = SocketAddress(host: "127.0.0.1", port: 0)
            }
            collector = EmbeddedCollector(dbPath: db, options: options)
            address = try collector.start()
            do {
                display = try VirtualDisplay()
            } catch {
                collector.stop()
                throw error
            }
        }

        func stop() {
            display.stop()
            collector.stop()
            try? FileManager.default.removeItem(at: dir)
        }

        /// A configuration file of `rules` (a JSON document's text).
        func config(_ rules: String) throws -> URL {
            let file = dir.appendingPathComponent("rules.json")
            try Data(rules.utf8).write(to: file)
            return file
        }
    }

    static func stored(_ db: String, atLeast predicate: ([[String: Any]]) -> Bool, within seconds: Double = 20) throws -> [[String: Any]] {
        let sql = "SELECT json_object('appKey',app_key,'type',type,'name',name,'page',page,'path',path,'viewId',view_id,'duration',duration,'props',json(props)) FROM events ORDER BY seq"
        let deadline = Date().addingTimeInterval(seconds)
        var last: [[String: Any]] = []
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: db) {
                last = (try? sqlite(db, sql))?.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? []
                if predicate(last) { return last }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessFailure("the stored events never met the test's expectation: \(last.map { $0["name"] ?? "?" })")
    }

    @Test func edenMathButtonsRadioMatrixKeyEquivalentAndKVC() throws {
        let h = try Harness("gnustep-edenmath")
        defer { h.stop() }
        let seven = "EMController-NSView-NSButton&0-0-6"
        let plus = "EMController-NSView-NSButton&0-0-18"
        let config = try h.config(
            """
            {"rules": [
              {"id": "digit", "appKey": "edenmath", "appVersion": "*", "viewEvent": "ButtonClick",
               "viewPath": "\(seven)", "keyPath": "title", "keyName": "digit"},
              {"id": "missing", "appKey": "edenmath", "appVersion": "*", "viewEvent": "ButtonClick",
               "viewPath": "\(plus)", "keyPath": "noSuchKeyOnAButton", "keyName": "nothing"}
            ]}
            """)
        let app = try TrackedApp(program: Self.edenMath, appKey: "edenmath", display: h.display, collector: h.address, directory: h.dir, config: config)
        let page = try app.tree("EMController")
        let window = try app.window(for: page, on: h.display, titled: "EdenMath")
        let sevenNode = try page.node("path", seven)
        #expect(sevenNode["title"] as? String == "7")
        try app.click(sevenNode, window: window, on: h.display)
        try app.click(try page.node("path", plus), window: window, on: h.display)
        // The radio matrix's second cell (EdenMath also has hidden buttons of the same titles).
        let radian = try #require(page.nodes.first { $0["type"] as? String == "NSButtonCell" && $0["title"] as? String == "Radian" })
        try app.click(radian, window: window, on: h.display)
        // Quit through the menu's key equivalent (GNUstep's command key is Alt).
        try h.display.xdotool(["windowfocus", window])
        try h.display.xdotool(["key", "alt+q"])
        let status = try app.process.waitForExit(within: 30)
        #expect(status == 0, "stderr: \(app.process.standardError.suffix(2000))")

        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let digit = try #require(events.first { $0["path"] as? String == seven && $0["type"] as? String == "click" }, "\(events)")
        #expect(digit["name"] as? String == "EMController#EMController#digitButton:")
        #expect(digit["viewId"] as? String == ViewID(canonical: seven).hex)
        #expect((digit["props"] as? [String: Any])?["digit"] as? String == "7")
        let add = try #require(events.first { $0["path"] as? String == plus && $0["type"] as? String == "click" })
        #expect(add["name"] as? String == "EMController#EMController#add:")
        let kvcError = try #require(events.first { $0["type"] as? String == "kvc_error" }, "\(events.map { $0["type"] ?? "?" })")
        #expect(((kvcError["props"] as? [String: Any])?["missingKey"] as? String) == "noSuchKeyOnAButton", "\(kvcError)")
        let matrix = try #require(
            events.first { $0["path"] as? String == radian["path"] as? String }, "\(events.map { "\($0["name"] ?? "?") \($0["path"] ?? "")" })")
        #expect(matrix["type"] as? String == "value_changed")
        #expect(matrix["name"] as? String == "EMController#EMController#setRadian:")
        #expect((matrix["props"] as? [String: Any])?["selectedIndex"] as? Int == 1)
        #expect((radian["path"] as? String)?.hasSuffix("NSMatrix-NSButtonCell&0-0-0-0:1") == true)
        let quit = try #require(events.first { $0["name"] as? String == "EMController#NSApplication#terminate:" })
        #expect((quit["path"] as? String)?.hasPrefix("NSMenu-NSMenuItem&0-") == true)
        #expect(events.contains { $0["type"] as? String == "page_enter" && $0["path"] as? String == "EMController&0" })
        #expect(events.contains { $0["type"] as? String == "page_leave" && $0["path"] as? String == "EMController&0" && $0["duration"] is Int })
        // Neither the app icon nor the menus are pages.
        #expect(!events.contains { $0["type"] as? String == "page_enter" && ($0["page"] as? String ?? "").hasPrefix("NS") })
        // The injection did not spread into GNUstep's daemons.
        for pid in TrackedApp.daemons(home: app.home.path) {
            let maps = FileHandle(forReadingAtPath: "/proc/\(pid)/maps")?.readDataToEndOfFile() ?? Data()
            #expect(!String(decoding: maps, as: UTF8.self).contains("libAutotrackObjCPreload"), "daemon \(pid)")
        }
    }

    static let textEdit = "/usr/lib/GNUstep/Applications/TextEdit.app/TextEdit"

    /// TextEdit: menu items sent by key equivalents (a nil target resolved as AppKit does, the
    /// key window's page as Controller), window-controller pages entered and left, and no hidden
    /// KVO subclass in any name or path.
    @Test func textEditMenusKeyEquivalentsAndWindowControllerPages() throws {
        let h = try Harness("gnustep-textedit")
        defer { h.stop() }
        let config = try h.config(#"{"rules": []}"#)
        let app = try TrackedApp(program: Self.textEdit, appKey: "textedit", display: h.display, collector: h.address, directory: h.dir, config: config)
        let page = try app.tree("DocumentWindowController")
        let window = try app.window(for: page, on: h.display, titled: "Untitled")
        try h.display.xdotool(["windowfocus", window])
        Thread.sleep(forTimeInterval: 0.3)
        // New (a second document window), Close it, Quit: all key equivalents of menu items.
        try h.display.xdotool(["key", "alt+n"])
        _ = try Self.stored(h.db, atLeast: { $0.filter { $0["type"] as? String == "page_enter" }.count >= 2 })
        try h.display.xdotool(["key", "alt+w"])
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "page_leave" } })
        try h.display.xdotool(["key", "alt+q"])
        let status = try app.process.waitForExit(within: 30)
        #expect(status == 0, "stderr: \(app.process.standardError.suffix(2000))")

        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let names = events.map { "\($0["name"] ?? "?") \($0["path"] ?? "")" }
        let new = try #require(events.first { ($0["name"] as? String)?.hasSuffix("#newDocument:") == true }, "\(names)")
        #expect(new["name"] as? String == "DocumentWindowController#DocumentController#newDocument:")
        #expect(new["type"] as? String == "click")
        let newPath = try #require(new["path"] as? String)
        #expect(newPath.hasPrefix("NSMenu-NSMenuItem-NSMenu-NSMenuItem&0-"), "\(newPath)")
        #expect(newPath.split(separator: "&").last?.split(separator: "-")[2] == "0", "a submenu is its item's only child: \(newPath)")
        #expect(new["viewId"] as? String == ViewID(canonical: newPath).hex)
        #expect(events.contains { $0["name"] as? String == "DocumentWindowController#NSWindow#performClose:" }, "\(names)")
        #expect(events.contains { ($0["name"] as? String)?.hasSuffix("#NSApplication#terminate:") == true }, "\(names)")
        let enters = events.filter { $0["type"] as? String == "page_enter" && $0["page"] as? String == "DocumentWindowController" }
        #expect(enters.count == 2, "\(names)")
        #expect(enters.last.flatMap { ($0["props"] as? [String: Any])?["count"] as? Int } == 2)
        let leaves = events.filter { $0["type"] as? String == "page_leave" }
        #expect(leaves.count == 2, "\(names)")
        #expect(leaves.allSatisfy { $0["path"] as? String == "DocumentWindowController&0" && $0["duration"] is Int }, "\(names)")
        #expect(!names.contains { $0.contains("GSKVO") || $0.contains("NSKVONotifying") }, "\(names)")
    }

    /// TextEdit's document (its own `NSScrollView` subclass, `ScalingScrollView`): typing 80
    /// lines scrolls it by itself (the text view follows the insertion point: no `scroll`), and 6
    /// wheel steps up are one `scroll` at rest, `up`, with the depth 1 of the bottom it started from.
    @Test func textEditScrollsByTheWheelNotByTyping() throws {
        let h = try Harness("gnustep-textedit-scroll")
        defer { h.stop() }
        let app = try TrackedApp(program: Self.textEdit, appKey: "textedit", display: h.display, collector: h.address, directory: h.dir, config: nil)
        let page = try app.tree("DocumentWindowController")
        let window = try app.window(for: page, on: h.display, titled: "Untitled")
        try h.display.xdotool(["windowfocus", window])
        Thread.sleep(forTimeInterval: 0.3)
        try h.display.xdotool(["type", "--delay", "2", (1...80).map { "line \($0)\n" }.joined()])
        // Longer than a rest (300 ms): a scroll of the typing would be stored by now.
        Thread.sleep(forTimeInterval: 1)
        let path = "DocumentWindowController-NSView-ScalingScrollView&0-0-0"
        let c = try WidgetTree.center(try page.node("path", path))
        try h.display.xdotool(["mousemove", "--window", window, String(c.x), String(c.y), "click", "--repeat", "6", "--delay", "40", "4"])
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "scroll" } })
        Thread.sleep(forTimeInterval: 0.5)
        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "scroll" } })
        let scrolls = events.filter { $0["type"] as? String == "scroll" }
        #expect(scrolls.count == 1, "\(events.map { $0["name"] ?? "?" })")
        let scroll = try #require(scrolls.first)
        let props = scroll["props"] as? [String: Any] ?? [:]
        #expect(scroll["path"] as? String == path && scroll["name"] as? String == "DocumentWindowController#ScalingScrollView#scroll")
        #expect(props["direction"] as? String == "up" && (props["depth"] as? NSNumber)?.doubleValue == 1, "\(props)")
        let offset = (try? JSONSerialization.jsonObject(with: Data((props["offset"] as? String ?? "").utf8)) as? [Int]) ?? []
        #expect(offset.count == 2 && offset[1] > 0, "\(props)")
    }

    /// The newest snapshot of `page` the collector stored, waited for.
    static func snapshot(_ collector: EmbeddedCollector, page: String, within seconds: Double = 30) throws -> (Snapshot, WidgetTree) {
        guard let store = collector.store as? any SnapshotStore else { throw HarnessFailure("the collector's store keeps no snapshots") }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let s = try store.snapshots(appKey: nil, appVersion: nil).first(where: { $0.page == page }), let full = try store.snapshot(id: s.id) {
                guard let o = try JSONSerialization.jsonObject(with: Data(full.tree.utf8)) as? [String: Any] else {
                    throw HarnessFailure("the snapshot's tree is not a JSON object")
                }
                return (full, WidgetTree(root: o))
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessFailure("no snapshot of \(page) within \(seconds) s")
    }

    /// Circle mode (`run --snapshots`): the studio's picture of EdenMath is the window's size, its
    /// tree's frames are in the picture's pixels, and a click at a node's frame is that node's click.
    @Test func edenMathPictureFramesContainTheClicks() throws {
        let h = try Harness("gnustep-picture")
        defer { h.stop() }
        let config = try h.config(#"{"rules": []}"#)
        let app = try TrackedApp(
            program: Self.edenMath, appKey: "edenmath", display: h.display, collector: h.address, directory: h.dir, config: config,
            options: ["--snapshots"])
        let (snapshot, tree) = try Self.snapshot(h.collector, page: "EMController")
        #expect(snapshot.width == 470 && snapshot.height == 246, "\(snapshot.width)x\(snapshot.height)")
        #expect(Array(snapshot.png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let window = try app.window(for: tree, on: h.display, titled: "EdenMath")
        let targets = ["9", "Mod", "Degree"].compactMap { title in tree.nodes.first { $0["title"] as? String == title && $0["frame"] != nil } }
        #expect(targets.count == 3)
        for node in targets { try app.click(node, window: window, on: h.display) }
        let paths = targets.compactMap { $0["path"] as? String }
        let events = try Self.stored(h.db, atLeast: { events in paths.allSatisfy { p in events.contains { $0["path"] as? String == p } } })
        for node in targets {
            let frame = try #require(node["frame"] as? [NSNumber])
            #expect(frame[0].intValue >= 0 && frame[1].intValue >= 0 && frame[0].intValue + frame[2].intValue <= snapshot.width
                && frame[1].intValue + frame[3].intValue <= snapshot.height, "\(node["path"] ?? "?") \(frame)")
            #expect(events.contains { $0["path"] as? String == node["path"] as? String && $0["viewId"] as? String == node["viewId"] as? String })
        }
        app.process.kill(SIGTERM)
    }

    /// A picture of TextEdit shows none of a document's text: the text view keeps no title and no
    /// children in the tree, and every pixel of its frame is painted over in grey.
    @Test func textEditPictureLeavesTheDocumentsTextOut() throws {
        let h = try Harness("gnustep-picture-text")
        defer { h.stop() }
        let config = try h.config(#"{"rules": []}"#)
        let note = h.dir.appendingPathComponent("note.txt")
        try Data("zebrasecret written here\n".utf8).write(to: note)
        let app = try TrackedApp(
            program: Self.textEdit, appKey: "textedit", display: h.display, collector: h.address, directory: h.dir, config: config,
            options: ["--snapshots"], arguments: [note.path])
        let (snapshot, tree) = try Self.snapshot(h.collector, page: "DocumentWindowController")
        #expect(!snapshot.tree.contains("zebrasecret"))
        let textView = try #require(tree.nodes.first { $0["type"] as? String == "NSTextView" && $0["frame"] != nil })
        #expect(textView["title"] == nil && textView["children"] == nil)
        let frame = try #require(textView["frame"] as? [NSNumber]).map(\.intValue)
        #expect(frame[2] > 20 && frame[3] > 10, "\(frame)")
        let png = h.dir.appendingPathComponent("picture.png")
        try Data(snapshot.png).write(to: png)
        // Every pixel inside the frame (2 px in from its edges), decoded by an independent reader.
        let colours = try Self.distinctColours(png: png, x: frame[0] + 2, y: frame[1] + 2, width: frame[2] - 4, height: frame[3] - 4)
        #expect(colours == ["158,158,158"], "\(colours.prefix(5))")
        app.process.kill(SIGTERM)
    }

    /// The distinct RGB colours of a rectangle of an 8-bit RGB or RGBA PNG, decoded by Python's zlib.
    static func distinctColours(png: URL, x: Int, y: Int, width: Int, height: Int) throws -> [String] {
        let script = """
            import sys, zlib, struct
            d = open(sys.argv[1], 'rb').read(); p = 8; idat = b''
            while p < len(d):
                n, t = struct.unpack('>I4s', d[p:p+8]); c = d[p+8:p+8+n]; p += 12 + n
                if t == b'IHDR': w, h, depth, ct = struct.unpack('>IIBB', c[:10])
                if t == b'IDAT': idat += c
            bpp = {2: 3, 6: 4}[ct]; raw = zlib.decompress(idat); stride = w * bpp; rows = []; prev = bytearray(stride); i = 0
            for r in range(h):
                f = raw[i]; line = bytearray(raw[i+1:i+1+stride]); i += 1 + stride
                for k in range(stride):
                    a = line[k-bpp] if k >= bpp else 0; b = prev[k]; cc = prev[k-bpp] if k >= bpp else 0
                    if f == 1: line[k] = (line[k] + a) & 255
                    elif f == 2: line[k] = (line[k] + b) & 255
                    elif f == 3: line[k] = (line[k] + (a + b) // 2) & 255
                    elif f == 4:
                        pa, pb, pc = abs(b - cc), abs(a - cc), abs(a + b - 2 * cc)
                        line[k] = (line[k] + (a if pa <= pb and pa <= pc else b if pb <= pc else cc)) & 255
                rows.append(line); prev = line
            x, y, W, H = map(int, sys.argv[2:6]); seen = set()
            for r in range(y, y + H):
                for q in range(x, x + W): seen.add('%d,%d,%d' % tuple(rows[r][q*bpp:q*bpp+3]))
            print('\\n'.join(sorted(seen)))
            """
        let p = try GUIProcess("/usr/bin/python3", ["-c", script, png.path, String(x), String(y), String(width), String(height)], environment: [:])
        let status = try p.waitForExit(within: 60)
        guard status == 0 else { throw HarnessFailure("the PNG reader failed: \(p.standardError)") }
        return p.standardOutput.split(separator: "\n").map(String.init)
    }

    /// A rule published to the collector while EdenMath runs reaches its next click, no restart.
    @Test func aRulePublishedWhileEdenMathRunsReachesItsNextClick() throws {
        let h = try Harness("gnustep-remote-config", access: CollectorAccess(adminToken: "admin"))
        defer { h.stop() }
        let data = h.dir.appendingPathComponent("agent")
        let app = try TrackedApp(
            program: Self.edenMath, appKey: "edenmath", display: h.display, collector: h.address, directory: h.dir, config: nil,
            options: ["--config-refresh", "1"], environment: ["AUTOTRACK_DATA_DIR": data.path])
        let page = try app.tree("EMController")
        let window = try app.window(for: page, on: h.display, titled: "EdenMath")
        let five = try #require(page.nodes.first { $0["type"] as? String == "NSButton" && $0["title"] as? String == "5" })
        let path = try #require(five["path"] as? String)
        try app.click(five, window: window, on: h.display)
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["path"] as? String == path } })

        let rules = h.dir.appendingPathComponent("rules.json")
        try Data(
            """
            {"rules": [{"id": "remote-digit", "appKey": "edenmath", "appVersion": "*", "viewEvent": "ButtonClick",
              "viewPath": "EMController-NSView-NSButton&0-0-*", "keyPath": "title", "keyName": "remoteDigit"}]}
            """.utf8
        ).write(to: rules)
        let publish = try GUIProcess(
            Fixtures.repositoryRoot.appendingPathComponent(".build/debug/autotrack-collector").path,
            ["rules", "publish", rules.path, "--to", h.address.description, "--token", "admin"], environment: ProcessInfo.processInfo.environment)
        #expect(try publish.waitForExit(within: 30) == 0, "stderr: \(publish.standardError)")
        // The agent keeps the rule set it swapped in on disk: wait for the published one.
        let kept = data.appendingPathComponent("rules.json")
        var swapped = false
        for _ in 0..<400 {
            if let text = try? String(contentsOf: kept, encoding: .utf8), text.contains("remote-digit") {
                swapped = true
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(swapped, "the running app did not take the published rules; stderr: \(app.process.standardError.suffix(2000))")
        try app.click(five, window: window, on: h.display)
        let events = try Self.stored(h.db, atLeast: { $0.filter { $0["path"] as? String == path }.count >= 2 })
        #expect(app.process.isRunning, "the same run of the app")
        let clicks = events.filter { $0["path"] as? String == path }
        #expect((clicks[0]["props"] as? [String: Any])?["remoteDigit"] == nil)
        #expect((clicks[1]["props"] as? [String: Any])?["remoteDigit"] as? String == "5")
        app.process.kill(SIGTERM)
    }

    static func application(_ name: String) -> String { "/usr/lib/GNUstep/Applications/\(name).app/\(name)" }

    /// Ink (gnustep-examples): document windows are ordered in before their window controller is
    /// set; their pages are still named after it, never after the bare window.
    @Test func inkDocumentWindowsArePagesOfTheirWindowController() throws {
        let h = try Harness("gnustep-ink")
        defer { h.stop() }
        let app = try TrackedApp(program: Self.application("Ink"), appKey: "ink", display: h.display, collector: h.address, directory: h.dir, config: nil)
        let page = try app.tree("NSWindowController")
        #expect(page.nodes.contains { $0["type"] as? String == "NSTextView" })
        let window = try app.window(for: page, on: h.display, titled: "Untitled")
        try h.display.xdotool(["windowfocus", window])
        Thread.sleep(forTimeInterval: 0.3)
        try h.display.xdotool(["key", "alt+n"])
        _ = try Self.stored(h.db, atLeast: { $0.filter { $0["type"] as? String == "page_enter" }.count >= 2 })
        try h.display.xdotool(["key", "alt+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let names = events.map { "\($0["type"] ?? "?") \($0["name"] ?? "?")" }
        let pages = events.filter { ["page_enter", "page_leave"].contains($0["type"] as? String) }
        #expect(pages.count == 4, "\(names)")
        #expect(pages.allSatisfy { $0["page"] as? String == "NSWindowController" && $0["path"] as? String == "NSWindowController&0" }, "\(names)")
        #expect(events.contains { $0["name"] as? String == "NSWindowController#NSDocumentController#newDocument:" }, "\(names)")
    }

    /// CurrencyConverter (gnustep-examples) acts through its fields' delegates, not target-action:
    /// what it gives is its page and its menu; typing and Return in its fields give no event, and
    /// the fields' typed text is never a title in the tree (docs/objc.md "What is not hooked").
    @Test func currencyConverterGivesItsPageAndMenuNotItsDelegateDrivenForm() throws {
        let h = try Harness("gnustep-currency")
        defer { h.stop() }
        let app = try TrackedApp(
            program: Self.application("CurrencyConverter"), appKey: "currency", display: h.display, collector: h.address, directory: h.dir, config: nil)
        let page = try app.tree("NSWindow")
        let labels = page.nodes.compactMap { $0["title"] as? String }
        #expect(labels.contains("EUROs to convert:") && labels.contains("Exchange rate per 1 EURO:"), "\(labels)")
        let window = try app.window(for: page, on: h.display, titled: "CurrencyConverter")
        let fields = page.nodes.filter { $0["type"] as? String == "NSTextField" && $0["title"] == nil }
        #expect(fields.count == 2, "the two editable fields: \(fields.map { $0["path"] ?? "?" })")
        let amount = try #require(fields.first)
        try app.click(amount, window: window, on: h.display)
        try h.display.xdotool(["type", "12"])
        try h.display.xdotool(["key", "Tab"])
        try h.display.xdotool(["type", "3"])
        try h.display.xdotool(["key", "Return"])
        Thread.sleep(forTimeInterval: 0.5)
        try h.display.xdotool(["key", "alt+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let names = events.map { "\($0["type"] ?? "?") \($0["name"] ?? "?")" }
        #expect(events.contains { $0["type"] as? String == "page_enter" && $0["path"] as? String == "NSWindow&0" }, "\(names)")
        #expect(events.contains { ($0["name"] as? String)?.hasSuffix("#NSApplication#terminate:") == true }, "\(names)")
        let formEvents = events.filter { ["click", "value_changed"].contains($0["type"] as? String) && !(($0["path"] as? String) ?? "").hasPrefix("NSMenu") }
        #expect(formEvents.isEmpty, "\(names)")
    }

    /// An app the issue does not name (gnustep-examples' Calculator), tracked click by click with
    /// real codes and real KVC values read through the live objects (`window.title`).
    @Test func calculatorIsTrackedClickByClickWithRealCodesAndKVC() throws {
        let h = try Harness("gnustep-calculator")
        defer { h.stop() }
        let config = try h.config(
            """
            {"rules": [
              {"id": "key", "appKey": "calculator", "appVersion": "*", "viewEvent": "ButtonClick",
               "viewPath": "CalcFace-NSView-NSButton&0-0-*", "keyPath": "title", "keyName": "key"},
              {"id": "window", "appKey": "calculator", "appVersion": "*", "viewEvent": "ButtonClick",
               "viewPath": "CalcFace-NSView-NSButton&0-0-*", "keyPath": "window.title", "keyName": "windowTitle"}
            ]}
            """)
        let app = try TrackedApp(
            program: Self.application("Calculator"), appKey: "calculator", display: h.display, collector: h.address, directory: h.dir, config: config)
        let page = try app.tree("CalcFace")
        let window = try app.window(for: page, on: h.display, titled: "Calculator")
        let keys = try ["7", "+", "2", "="].map { title in
            try #require(page.nodes.first { $0["type"] as? String == "NSButton" && $0["title"] as? String == title }, "no \(title) key")
        }
        for key in keys { try app.click(key, window: window, on: h.display) }
        try h.display.xdotool(["windowfocus", window])
        try h.display.xdotool(["key", "alt+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let clicks = events.filter { $0["type"] as? String == "click" && ($0["path"] as? String ?? "").hasPrefix("CalcFace-") }
        #expect(clicks.map { $0["path"] as? String } == keys.map { $0["path"] as? String }, "\(events.map { $0["name"] ?? "?" })")
        for (click, key) in zip(clicks, keys) {
            let name = click["name"] as? String ?? ""
            #expect(name.wholeMatch(of: #/CalcFace#[A-Za-z_][A-Za-z0-9_]*#[A-Za-z_][A-Za-z0-9_:]*:/#) != nil, "\(name)")
            let props = click["props"] as? [String: Any] ?? [:]
            #expect(props["key"] as? String == key["title"] as? String)
            #expect(props["windowTitle"] as? String == "Calculator.app")
            #expect(click["viewId"] as? String == ViewID(canonical: key["path"] as? String ?? "").hex)
        }
        #expect(!events.contains { $0["type"] as? String == "kvc_error" })
    }

    /// Calculator, circled in the studio: its picture reaches the studio, pointing at a key there
    /// names the key the clicks were made on with their count, and a definition made from that
    /// element counts the clicks made before it existed. Every call is the studio's HTTP API through
    /// `curl`, as the studio's page makes them.
    @Test func calculatorIsCircledInTheStudio() throws {
        let h = try Harness("gnustep-calculator-studio", studio: true)
        defer { h.stop() }
        let studio = try #require(h.collector.studioAddress)
        func api(_ path: String, post body: String? = nil) throws -> JSONValue {
            let data = body.map { ["-H", "Content-Type: application/json", "-d", $0] } ?? []
            let out = try runProgram(
                "/usr/bin/curl", ["-s", "--max-time", "20", "-H", "Authorization: Bearer admin"] + data + ["http://127.0.0.1:\(studio.port)\(path)"],
                timeout: 60
            ).output
            return try JSONValue.parse(out)
        }
        let app = try TrackedApp(
            program: Self.application("Calculator"), appKey: "calculator", display: h.display, collector: h.address, directory: h.dir,
            config: h.config(#"{"rules": []}"#), options: ["--snapshots"])
        let (snapshot, tree) = try Self.snapshot(h.collector, page: "CalcFace")
        let seven = try #require(tree.nodes.first { $0["type"] as? String == "NSButton" && $0["title"] as? String == "7" && $0["frame"] != nil })
        let path = try #require(seven["path"] as? String)
        let window = try app.window(for: tree, on: h.display, titled: "Calculator")
        for _ in 0..<2 { try app.click(seven, window: window, on: h.display) }
        _ = try Self.stored(h.db, atLeast: { $0.filter { $0["type"] as? String == "click" && $0["path"] as? String == path }.count == 2 })
        // The studio lists the picture, and pointing at the key's middle in it is the key.
        let listed = try api("/api/snapshots?app=calculator")["snapshots"]?.arrayValue ?? []
        #expect(listed.contains { $0["id"] == .int(snapshot.id) && $0["page"] == "CalcFace" }, "\(listed)")
        let c = try WidgetTree.center(seven)
        let pick = try api("/api/snapshots/\(snapshot.id)/pick?x=\(c.x)&y=\(c.y)")
        #expect(pick["path"] == .string(path), "\(pick.jsonText)")
        #expect(pick["interactions"] == 2 && pick["event"] == "ButtonClick", "\(pick.jsonText)")
        // A definition made from it now counts the two clicks made before it (retroactive).
        let rule = #"{"id":"seven","appKey":"calculator","appVersion":"*","viewEvent":"ButtonClick","viewPath":"\#(path)"}"#
        #expect(try api("/api/rules", post: rule)["rule"]?["id"] == "seven")
        #expect(try api("/api/rules/seven/counts?app=calculator")["total"] == 2)
        let heat = try api("/api/snapshots/\(snapshot.id)/heatmap")["elements"]?.arrayValue ?? []
        #expect(heat.contains { $0["path"] == .string(path) && $0["count"] == 2 }, "\(heat)")
        app.process.kill(SIGTERM)
    }

    /// Two apps on one display: clicking the other one sends EdenMath to the background (with its
    /// time in the foreground), clicking EdenMath again brings it back.
    /// EdenMath ended from outside (SIGTERM from `kill` or a service manager, SIGINT, SIGHUP):
    /// its page is left and `app_end` reported, whether GNUstep handles the signal itself (it
    /// terminates the application, exit 0) or the preload does (then it dies of the signal).
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func edenMathEndedByASignalLeavesItsPageAndReportsAppEnd(_ signal: Int32) throws {
        let h = try Harness("gnustep-signal-\(signal)")
        defer { h.stop() }
        let eden = try TrackedApp(program: Self.edenMath, appKey: "edenmath", display: h.display, collector: h.address, directory: h.dir, config: nil)
        _ = try eden.tree("EMController")
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "page_enter" } })
        // The program: the child `autotrack-agent run` started.
        let agentPID = eden.process.pid
        let children = try String(contentsOfFile: "/proc/\(agentPID)/task/\(agentPID)/children", encoding: .utf8)
        let program = try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "run started no program")
        try Posix.sendSignal(signal, to: program)
        let status = try eden.process.waitForExit(within: 30)
        #expect(status == 0 || status == 128 + signal, "exit \(status): \(eden.process.standardError.suffix(2000))")
        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let types = events.map { $0["type"] as? String ?? "?" }
        #expect(types.last == "app_end", "\(types)")
        let entered = try #require(types.firstIndex(of: "page_enter"), "\(types)")
        #expect(types[entered...].contains("page_leave"), "\(types)")
    }

    @Test func edenMathGoesToTheBackgroundAndComesBack() throws {
        let h = try Harness("gnustep-foreground")
        defer { h.stop() }
        let eden = try TrackedApp(
            program: Self.edenMath, appKey: "edenmath", display: h.display, collector: h.address, directory: h.dir.appendingPathComponent("eden"),
            config: nil)
        let edenPage = try eden.tree("EMController")
        let edenWindow = try eden.window(for: edenPage, on: h.display, titled: "EdenMath")
        let calc = try TrackedApp(
            program: Self.application("Calculator"), appKey: "calculator", display: h.display, collector: h.address,
            directory: h.dir.appendingPathComponent("calc"), config: nil)
        let calcPage = try calc.tree("CalcFace")
        let calcWindow = try calc.window(for: calcPage, on: h.display, titled: "Calculator")
        func edenEvents(_ type: String) -> ([[String: Any]]) -> Bool {
            { $0.contains { $0["appKey"] as? String == "edenmath" && $0["type"] as? String == type } }
        }
        let seven = try #require(calcPage.nodes.first { $0["title"] as? String == "7" })
        try calc.click(seven, window: calcWindow, on: h.display)
        _ = try Self.stored(h.db, atLeast: edenEvents("app_background"))
        let five = try #require(edenPage.nodes.first { $0["type"] as? String == "NSButton" && $0["title"] as? String == "5" })
        try eden.click(five, window: edenWindow, on: h.display)
        let events = try Self.stored(h.db, atLeast: edenEvents("app_foreground")).filter { $0["appKey"] as? String == "edenmath" }
        let background = try #require(events.first { $0["type"] as? String == "app_background" })
        #expect(((background["props"] as? [String: Any])?["duration"] as? Int ?? -1) >= 0, "\(background)")
        let types = events.map { $0["type"] as? String ?? "?" }
        let b = try #require(types.firstIndex(of: "app_background"))
        #expect(types[(b + 1)...].contains("app_foreground"), "\(types)")
        #expect(types.first == "app_start")
    }

    /// The value controls and privacy rules on an AppKit app made for the tests
    /// (Tests/CObjCFixtureApp): a switch reports its state, a slider its value, a text field the
    /// end of editing without its text (a rule reads it only with `readText`), a secure field is
    /// never read, an ignored button reports nothing, and a rule reads the page's controller.
    @Test func valueControlsAndPrivacyOnAnAppKitForm() throws {
        let h = try Harness("gnustep-form")
        defer { h.stop() }
        let v = "FormController-NSView-"
        let config = try h.config(
            """
            {"rules": [
              {"id": "typed", "appKey": "form", "appVersion": "*", "viewEvent": "ValueChanged",
               "viewPath": "\(v)NSTextField&0-0-0", "keyPath": "stringValue", "keyName": "typed"},
              {"id": "typedAllowed", "appKey": "form", "appVersion": "*", "viewEvent": "ValueChanged",
               "viewPath": "\(v)NSTextField&0-0-0", "keyPath": "stringValue", "keyName": "name", "readText": true},
              {"id": "password", "appKey": "form", "appVersion": "*", "viewEvent": "ValueChanged",
               "viewPath": "\(v)NSSecureTextField&0-0-0", "keyPath": "stringValue", "keyName": "password", "readText": true},
              {"id": "order", "appKey": "form", "appVersion": "*", "viewEvent": "ButtonClick",
               "viewPath": "\(v)NSButton&0-0-2", "keyPath": "parent.parent.order", "keyName": "order"}
            ],
             "ignore": ["\(v)NSButton&0-0-1"]}
            """)
        let fixture = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/objc-fixture-app").path
        let app = try TrackedApp(program: fixture, appKey: "form", display: h.display, collector: h.address, directory: h.dir, config: config)
        let page = try app.tree("FormController")
        let window = try app.window(for: page, on: h.display, titled: "Fixture form")
        func node(_ path: String) throws -> [String: Any] { try page.node("path", v + path) }
        try app.click(try node("NSButton&0-0-0"), window: window, on: h.display)
        // The slider at three quarters of its width.
        let slider = try #require(try node("NSSlider&0-0-0")["frame"] as? [NSNumber]).map(\.intValue)
        try h.display.xdotool([
            "mousemove", "--window", window, String(slider[0] + slider[2] * 3 / 4), String(slider[1] + slider[3] / 2),
            "mousedown", "1", "sleep", "0.15", "mouseup", "1",
        ])
        try app.click(try node("NSTextField&0-0-0"), window: window, on: h.display)
        try h.display.xdotool(["type", "Ada"])
        try h.display.xdotool(["key", "Return"])
        try app.click(try node("NSSecureTextField&0-0-0"), window: window, on: h.display)
        try h.display.xdotool(["type", "hunter2"])
        try h.display.xdotool(["key", "Return"])
        try app.click(try node("NSButton&0-0-1"), window: window, on: h.display)
        try app.click(try node("NSButton&0-0-2"), window: window, on: h.display)
        // "Move" moves itself into the box at the same place: the same object, clicked twice, under
        // two parents (the hooks keep the last action's nodes; a moved view must not keep its path).
        let move = try node("NSButton&0-0-3")
        try app.click(move, window: window, on: h.display)
        let movedPath = v + "NSBox-NSView-NSButton&0-0-0-0-0"
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["path"] as? String == v + "NSButton&0-0-3" } })
        try app.click(move, window: window, on: h.display)
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["path"] as? String == movedPath } })
        let buyPath = v + "NSButton&0-0-2"
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["path"] as? String == buyPath } })
        try h.display.xdotool(["key", "alt+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let names = events.map { "\($0["type"] ?? "?") \($0["name"] ?? "?") \($0["path"] ?? "")" }
        func event(_ path: String) -> [String: Any]? { events.first { $0["path"] as? String == v + path } }
        func props(_ e: [String: Any]?) -> [String: Any] { e?["props"] as? [String: Any] ?? [:] }

        let gift = try #require(event("NSButton&0-0-0"), "\(names)")
        #expect(gift["type"] as? String == "value_changed" && gift["name"] as? String == "FormController#FormController#changed:")
        #expect(props(gift)["isOn"] as? Bool == true)
        let slid = try #require(event("NSSlider&0-0-0"), "\(names)")
        #expect(slid["type"] as? String == "value_changed")
        let value = (props(slid)["value"] as? NSNumber)?.doubleValue ?? -1
        #expect(value > 5 && value < 10, "\(value)")
        let typed = try #require(event("NSTextField&0-0-0"), "\(names)")
        #expect(typed["type"] as? String == "value_changed")
        #expect(props(typed)["name"] as? String == "Ada")
        #expect(props(typed)["typed"] == nil)
        let secure = try #require(event("NSSecureTextField&0-0-0"), "\(names)")
        #expect(props(secure)["password"] == nil)
        let errors = events.filter { $0["type"] as? String == "kvc_error" }.map { props($0)["ruleId"] as? String }
        #expect(Set(errors.compactMap { $0 }) == ["typed", "password"], "\(names)")
        #expect(event("NSButton&0-0-1") == nil, "the ignored button: \(names)")
        #expect(props(event("NSButton&0-0-2"))["order"] as? String == "order-42")
        let moves = events.filter { ($0["name"] as? String)?.hasSuffix("#moved:") == true }.map { $0["path"] as? String ?? "" }
        #expect(moves == [v + "NSButton&0-0-3", v + "NSBox-NSView-NSButton&0-0-0-0-0"], "\(names)")
        let stored = try sqlite(h.db, "SELECT props FROM events").joined(separator: "\n")
        #expect(!stored.contains("hunter2"))
    }

    /// The fixture's lists window (`--lists`): a table's rows clicked (`list_item_click` on the row
    /// `[0, row]`, a rule reading the page's controller through the row's ancestors), a stepper and
    /// a pop-up (`value_changed`, without the pop-up menu's own hop), the wheel and a scroller
    /// moving scroll views (`scroll` at rest, with offset, direction and depth), and impressions of
    /// the rows in view and of a button below the fold once scrolled into view, each once.
    @Test func tablesSteppersPopUpsScrollingAndImpressionsOnAnAppKitApp() throws {
        let h = try Harness("gnustep-lists")
        defer { h.stop() }
        let v = "ListController-NSView-"
        let rowsPath = v + "NSScrollView-NSClipView-NSTableView-NSTableRow&0-0-0-0-0-0:"
        let promoPath = v + "NSScrollView-NSClipView-FlippedView-NSButton&0-0-1-0-0-1"
        let config = try h.config(
            """
            {"rules": [
              {"id": "promo", "appKey": "lists", "appVersion": "*", "viewEvent": "Impression",
               "viewPath": "\(promoPath)", "keyPath": "title", "keyName": "promo"},
              {"id": "rows", "appKey": "lists", "appVersion": "*", "viewEvent": "Impression",
               "viewPath": "\(rowsPath)*"},
              {"id": "shop", "appKey": "lists", "appVersion": "*", "viewEvent": "ListItemClick",
               "viewPath": "\(rowsPath)*", "keyPath": "parent.parent.parent.parent.parent.shop", "keyName": "shop"}
            ]}
            """)
        let fixture = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/objc-fixture-app").path
        let app = try TrackedApp(
            program: fixture, appKey: "lists", display: h.display, collector: h.address, directory: h.dir, config: config,
            arguments: ["--lists"])
        let page = try app.tree("ListController")
        let window = try app.window(for: page, on: h.display, titled: "Fixture lists")
        func frame(_ path: String) throws -> [Int] {
            try #require(try page.node("path", v + path)["frame"] as? [NSNumber]).map(\.intValue)
        }
        let table = try frame("NSScrollView-NSClipView-NSTableView&0-0-0-0-0")
        let rowsClip = try frame("NSScrollView-NSClipView&0-0-0-0")
        let rowHeight = Double(table[3]) / 40
        // The rows at least half inside the table's clip view, as the first look finds them.
        let inView = (0..<40).filter { row in
            let top = Double(row) * rowHeight
            return (min(top + rowHeight, Double(rowsClip[3])) - top) / rowHeight >= 0.5
        }
        let shownRows = try Self.stored(h.db, atLeast: { events in
            Set(events.filter { $0["type"] as? String == "impression" }.compactMap { $0["path"] as? String }).count >= inView.count
        })
        // Row 3 clicked, the stepper's upper half, then the pop-up's second item (pressed, moved to, released).
        try h.display.xdotool([
            "mousemove", "--window", window, String(table[0] + 40), String(table[1] + Int(rowHeight * 3.4)),
            "mousedown", "1", "sleep", "0.15", "mouseup", "1",
        ])
        Thread.sleep(forTimeInterval: 0.3)
        let stepper = try frame("NSStepper&0-0-0")
        try h.display.xdotool([
            "mousemove", "--window", window, String(stepper[0] + stepper[2] / 2), String(stepper[1] + stepper[3] / 4),
            "mousedown", "1", "sleep", "0.15", "mouseup", "1",
        ])
        Thread.sleep(forTimeInterval: 0.3)
        let popUp = try WidgetTree.center(try page.node("path", v + "NSPopUpButton&0-0-0"))
        try h.display.xdotool([
            "mousemove", "--window", window, String(popUp.x), String(popUp.y), "mousedown", "1", "sleep", "0.4",
            "mousemove", "--window", window, String(popUp.x), String(popUp.y + 24), "sleep", "0.3", "mouseup", "1",
        ])
        Thread.sleep(forTimeInterval: 0.5)
        // The feed: 12 wheel steps down (its line scroll is 40 px), at rest, then 12 back up.
        let feed = try frame("NSScrollView&0-0-1")
        let feedClip = try frame("NSScrollView-NSClipView&0-0-1-0")
        let inFeed = [String(feed[0] + feed[2] / 2), String(feed[1] + feed[3] / 2)]
        try h.display.xdotool(["mousemove", "--window", window] + inFeed + ["click", "--repeat", "12", "--delay", "40", "5"])
        _ = try Self.stored(h.db, atLeast: { $0.contains { $0["path"] as? String == promoPath && $0["type"] as? String == "impression" } })
        try h.display.xdotool(["mousemove", "--window", window] + inFeed + ["click", "--repeat", "12", "--delay", "40", "4"])
        _ = try Self.stored(h.db, atLeast: { $0.filter { $0["type"] as? String == "scroll" }.count >= 2 })
        // The scroller's knob (at the top again) dragged down.
        let scroller = try frame("NSScrollView-NSScroller&0-0-1-0")
        let knob = String(scroller[0] + scroller[2] / 2)
        try h.display.xdotool(
            ["mousemove", "--window", window, knob, String(scroller[1] + 30), "mousedown", "1", "sleep", "0.2"]
                + [60, 100, 150].flatMap { ["mousemove", "--window", window, knob, String(scroller[1] + $0), "sleep", "0.1"] }
                + ["sleep", "0.1", "mouseup", "1"])
        _ = try Self.stored(h.db, atLeast: { $0.filter { $0["type"] as? String == "scroll" }.count >= 3 })
        try h.display.xdotool(["key", "alt+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        let events = try Self.stored(h.db, atLeast: { $0.contains { $0["type"] as? String == "app_end" } })
        let names = events.map { "\($0["type"] ?? "?") \($0["name"] ?? "?") \($0["path"] ?? "")" }
        func props(_ e: [String: Any]?) -> [String: Any] { e?["props"] as? [String: Any] ?? [:] }

        // The rows in view, each once, before any input.
        let firstRows = shownRows.filter { $0["type"] as? String == "impression" }.compactMap { $0["path"] as? String }
        #expect(firstRows == inView.map { rowsPath + String($0) }, "\(names)")
        let row = try #require(events.first { $0["type"] as? String == "list_item_click" }, "\(names)")
        #expect(row["path"] as? String == rowsPath + "3" && row["name"] as? String == "ListController#ListController#chose:")
        #expect(props(row)["indexPath"] as? String == "0:3" && props(row)["shop"] as? String == "shop-7", "\(row)")
        let stepped = try #require(events.first { $0["path"] as? String == v + "NSStepper&0-0-0" }, "\(names)")
        #expect(stepped["type"] as? String == "value_changed" && (props(stepped)["value"] as? NSNumber)?.intValue == 1)
        let chosen = try #require(events.first { $0["path"] as? String == v + "NSPopUpButton&0-0-0" }, "\(names)")
        #expect(chosen["type"] as? String == "value_changed")
        #expect((props(chosen)["selectedIndex"] as? NSNumber)?.intValue == 1 && props(chosen)["title"] as? String == "Medium")
        #expect(!names.contains { $0.contains("_popUpItemAction:") || $0.contains("_doScroll:") }, "\(names)")

        let scrolls = events.filter { $0["type"] as? String == "scroll" }
        #expect(scrolls.count == 3, "\(names)")
        #expect(scrolls.allSatisfy { $0["path"] as? String == v + "NSScrollView&0-0-1" && $0["name"] as? String == "ListController#NSScrollView#scroll" })
        func offsetY(_ e: [String: Any]) -> Int {
            let text = props(e)["offset"] as? String ?? ""
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Int])?.last ?? -1
        }
        let down = scrolls[0]
        let depth = (props(down)["depth"] as? NSNumber)?.doubleValue ?? -1
        #expect(props(down)["direction"] as? String == "down" && offsetY(down) > 300, "\(down)")
        #expect(abs(depth - Double(offsetY(down) + feedClip[3]) / 900) < 0.01, "\(down)")
        if scrolls.count == 3 {
            #expect(props(scrolls[1])["direction"] as? String == "up" && offsetY(scrolls[1]) == 0, "\(scrolls[1])")
            // The depth is the largest seen in the visit: it stays after scrolling back.
            #expect((props(scrolls[1])["depth"] as? NSNumber)?.doubleValue == depth)
            #expect(props(scrolls[2])["direction"] as? String == "down" && offsetY(scrolls[2]) > 0, "\(scrolls[2])")
        }
        let promos = events.filter { $0["type"] as? String == "impression" && $0["path"] as? String == promoPath }
        #expect(promos.count == 1, "\(names)")
        #expect(props(promos.first)["promo"] as? String == "Promo" && promos.first?["name"] as? String == "ListController#NSButton#impression")
        let impressionPaths = events.filter { $0["type"] as? String == "impression" }.compactMap { $0["path"] as? String }
        #expect(Set(impressionPaths).count == impressionPaths.count, "each element once per visit: \(impressionPaths)")
    }
}
