import TestSupport
import Foundation
import KVCConfig
import Matching
import Testing
import ViewIdentity

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX extended regular expression, through the C library.
final class POSIXRegex {
    private var re = regex_t()

    init(_ pattern: String) throws {
        let rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB)
        if rc != 0 { throw CompileError(pattern: pattern, code: rc) }
    }

    deinit { regfree(&re) }

    func matches(_ s: String) -> Bool { regexec(&re, s, 0, nil, 0) == 0 }

    struct CompileError: Error, CustomStringConvertible {
        var pattern: String
        var code: Int32
        var description: String { "regcomp failed (\(code)) for \(pattern)" }
    }
}

@Suite struct CircleSelectionTests {
    @Test func regexForTheSpecPattern() throws {
        let pattern = try PathPattern("HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*")
        let s = CircleSelection(pattern: pattern, content: "Buy")
        #expect(s.pathRegex == "^HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:[0-9]+$")
        #expect(s.title == "Buy")
        let any = CircleSelection(pattern: try PathPattern("DetailViewController(gift)-Outer.Inner&0-*"))
        #expect(any.pathRegex == "^DetailViewController\\(gift\\)-Outer\\.Inner&0-[0-9]+(:[0-9]+)?$")
        #expect(any.title == nil)
        let r = try rule("r", path: "A-B&0-1", content: "Fav")
        #expect(CircleSelection(rule: r) == CircleSelection(pattern: r.viewPath, content: "Fav"))
    }

    /// Names with every character either dialect treats as special, random patterns, and paths near
    /// them: ICU, POSIX ERE and the pattern matcher must all agree.
    @Test func regexAgreesWithThePatternMatcherOnRandomPaths() throws {
        let names = [
            "UIView", "Outer.Inner", "D(gift)", "A+B", "x|y", "q?", "b[1]", "c{2}", "d}", "e]", "f^g", "$h",
            "back\\slash", "Ünïcödé", "Box<Int>", "a.b",
        ]
        var rng = SeededGenerator(seed: 11)
        func index() -> PathPattern.IndexPattern {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return .any
            case 1: return .anyRow(section: Int.random(in: 0..<12, using: &rng))
            case 2: return .exact(.cell(CellIndexPath(section: Int.random(in: 0..<12, using: &rng), row: Int.random(in: 0..<12, using: &rng))))
            default: return .exact(.position(Int.random(in: 0..<12, using: &rng)))
            }
        }
        func concrete(_ p: PathPattern.IndexPattern) -> PathIndex {
            switch p {
            case .exact(let e): return e
            case .anyRow(let s): return .cell(CellIndexPath(section: s, row: Int.random(in: 0..<120, using: &rng)))
            case .any: return Bool.random(using: &rng) ? .position(Int.random(in: 0..<120, using: &rng)) : concrete(.anyRow(section: Int.random(in: 0..<12, using: &rng)))
            }
        }
        var agreed = (yes: 0, no: 0)
        for _ in 0..<300 {
            let count = Int.random(in: 1...5, using: &rng)
            let pNames = (0..<count).map { _ in names.randomElement(using: &rng)! }
            let pIndexes = (0..<count).map { _ in index() }
            let pattern = try PathPattern(pNames.joined(separator: "-") + "&" + pIndexes.map(\.description).joined(separator: "-"))
            let selection = CircleSelection(pattern: pattern)
            let icu = try NSRegularExpression(pattern: selection.pathRegex)
            let posix = try POSIXRegex(selection.pathRegex)
            for _ in 0..<20 {
                var els = zip(pNames, pIndexes).map { ViewPath.Element(name: $0, index: concrete($1)) }
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: els[Int.random(in: 0..<els.count, using: &rng)].index = concrete(index())
                case 1: els[Int.random(in: 0..<els.count, using: &rng)].name = names.randomElement(using: &rng)!
                case 2: els.append(.init(name: names.randomElement(using: &rng)!, index: concrete(index())))
                case 3 where els.count > 1: els.removeLast()
                default: break
                }
                let path = ViewPath(elements: els)
                let canonical = path.canonical
                let expected = pattern.matches(path)
                let byICU = icu.firstMatch(in: canonical, range: NSRange(location: 0, length: canonical.utf16.count)) != nil
                let byPOSIX = posix.matches(canonical)
                #expect(byICU == expected, "ICU \(selection.pathRegex) on \(canonical)")
                #expect(byPOSIX == expected, "ERE \(selection.pathRegex) on \(canonical)")
                if expected { agreed.yes += 1 } else { agreed.no += 1 }
            }
        }
        // Both outcomes must be well represented.
        #expect(agreed.yes > 1000 && agreed.no > 1000)
    }
}
