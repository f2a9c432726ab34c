import Testing
import ViewIdentity

@Suite struct PathTextCacheTests {
    func path(_ names: [String], _ indexes: [Int]) -> ViewPath {
        ViewPath(elements: zip(names, indexes).map { ViewPath.Element(name: $0, index: .position($1)) })
    }

    func expectTexts(_ texts: PathTextCache.Texts, of path: ViewPath, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(texts.canonical == path.canonical, sourceLocation: sourceLocation)
        #expect(texts.viewID == path.viewID.hex, sourceLocation: sourceLocation)
    }

    @Test func aPathsTextsAreItsCanonicalFormAndViewID() {
        let cache = PathTextCache()
        let p = path(["BenchController", "NSView", "NSButton"], [0, 0, 2])
        expectTexts(cache.texts(of: p), of: p)
        // Asked again (a path equal to it, made anew): the same texts.
        expectTexts(cache.texts(of: path(["BenchController", "NSView", "NSButton"], [0, 0, 2])), of: p)
    }

    @Test func anotherPathNeverGetsARememberedText() {
        let cache = PathTextCache()
        let first = path(["Page", "NSView", "NSButton"], [0, 0, 2])
        _ = cache.texts(of: first)
        for other in [
            path(["Page", "NSView", "NSButton"], [0, 0, 1]),
            path(["Page", "NSBox", "NSButton"], [0, 0, 2]),
            path(["Other", "NSView", "NSButton"], [0, 0, 2]),
            path(["Page", "NSView"], [0, 0]),
            path(["Page", "NSView", "NSButton", "NSButton"], [0, 0, 2, 0]),
            ViewPath(elements: [.init(name: "Page", index: .position(0)), .init(name: "Cell", index: .cell(CellIndexPath(section: 0, row: 2)))]),
        ] {
            expectTexts(cache.texts(of: other), of: other)
        }
        expectTexts(cache.texts(of: first), of: first)
    }

    @Test func namesCompareByTheirBytes() {
        let cache = PathTextCache()
        let composed = path(["Caf\u{E9}"], [0])
        let decomposed = path(["Cafe\u{301}"], [0])
        let a = cache.texts(of: composed)
        let b = cache.texts(of: decomposed)
        expectTexts(a, of: composed)
        expectTexts(b, of: decomposed)
        #expect(a.viewID != b.viewID)
    }

    @Test func itKeepsAtMostItsCapacityAndStaysRight() {
        let cache = PathTextCache(capacity: 2)
        let paths = (0..<5).map { path(["Page", "NSButton"], [0, $0]) }
        for _ in 0..<3 {
            for p in paths {
                expectTexts(cache.texts(of: p), of: p)
                #expect(cache.count <= 2)
            }
        }
        #expect(cache.count == 2)
    }
}
