import Testing

@testable import KVCConfig

@Suite struct VersionRangeTests {
    func v(_ s: String) throws -> AppVersion { try #require(AppVersion(s)) }

    @Test func starHoldsForEveryVersion() throws {
        let r = try VersionRange("*")
        #expect(r.comparators.isEmpty)
        for s in ["0", "1.2.3", "99.0.0.1"] { #expect(r.contains(try v(s))) }
    }

    @Test func exactVersionIgnoresTrailingZeros() throws {
        let r = try VersionRange("1.2")
        #expect(r.contains(try v("1.2")))
        #expect(r.contains(try v("1.2.0")))
        #expect(r.contains(try v("1.2.0.0")))
        #expect(!r.contains(try v("1.2.1")))
        #expect(!r.contains(try v("1.20")))
        #expect(try VersionRange("=1.2.0").contains(try v("1.2")))
    }

    @Test func comparatorsMustAllHold() throws {
        let r = try VersionRange(">=1.2.0 <2.0.0")
        #expect(r.comparators == [.greaterOrEqual(try v("1.2.0")), .less(try v("2.0.0"))])
        #expect(r.contains(try v("1.2")))
        #expect(r.contains(try v("1.10.0")))  // Numeric, not text: 10 > 2.
        #expect(r.contains(try v("1.99.99")))
        #expect(!r.contains(try v("1.1.9")))
        #expect(!r.contains(try v("2")))
        #expect(!r.contains(try v("2.0.0")))
        let open = try VersionRange(">1 <=3")
        #expect(!open.contains(try v("1.0.0")))
        #expect(open.contains(try v("1.0.1")))
        #expect(open.contains(try v("3.0")))
        #expect(!open.contains(try v("3.0.1")))
    }

    @Test func missingPartsAreZero() throws {
        #expect(try v("1") == v("1.0.0"))
        #expect(try v("1.2") < v("1.2.1"))
        #expect(try v("1.2.0") == v("1.2"))
        #expect(try Set([v("1.2"), v("1.2.0")]).count == 1)
        #expect(try VersionRange("<1.3").contains(try v("1.2.99")))
    }

    @Test(arguments: [
        (">=", "\"\" is not a version"),
        ("1..2", "neither a version nor a comparator"),
        (">=a", "\"a\" is not a version"),
        ("~1.0", "neither a version nor a comparator"),
        ("", "is empty"),
        ("   ", "is empty"),
        ("* >=1.0", "mixes \"*\""),
        (">=1.0<2.0", "is not a version"),
        ("1.2.-3", "neither a version"),
        ("==1.0", "is not a version"),
        ("1.0 beta", "\"beta\""),
        ("99999999999999999999", "neither a version"),
    ])
    func malformedRangesAreErrors(text: String, reason: String) {
        do {
            let r = try VersionRange(text)
            Issue.record("\"\(text)\" parsed as \(r.comparators)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
            #expect(error.text == text)
        }
    }

    @Test func tabsSeparateComparatorsToo() throws {
        #expect(try VersionRange(">=1\t<2").comparators.count == 2)
    }
}
