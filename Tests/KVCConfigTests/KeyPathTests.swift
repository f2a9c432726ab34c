import EventModel
import Testing

@testable import KVCConfig

@Suite struct KeyPathTests {
    let props: JSONValue = ["product": ["id": "p-42", "price": 9.5, "tags": ["a", "b"], "0": "zero-key"], "n": nil]

    func read(_ path: String, _ root: JSONValue) throws -> Result<JSONValue, KeyPathMiss> {
        try KVCKeyPath(path).read(from: root)
    }

    @Test func readsJSON() throws {
        #expect(try read("product.id", props).get() == "p-42")
        #expect(try read("product.tags.1", props).get() == "b")
        #expect(try read("product.0", props).get() == "zero-key")
        #expect(try read("n", props).get() == .null)
        #expect(try read("product", props).get().objectValue?.count == 4)
    }

    @Test func missesNameTheKeyAndWhatWasRead() throws {
        let cases: [(String, String, String, String)] = [
            ("product.sku", "sku", "product", "an object without it"),
            ("product.tags.2", "2", "product.tags", "an array of 2"),
            ("product.id.x", "x", "product.id", "a string"),
            ("missing.id", "missing", "", "an object without it"),
            ("n.x", "x", "n", "null"),
            ("product.tags.x", "x", "product.tags", "an array"),
        ]
        for (path, key, prefix, found) in cases {
            guard case .failure(let miss) = try read(path, props) else {
                Issue.record("\(path) read something")
                continue
            }
            #expect(miss == KeyPathMiss(missingKey: key, resolvedPrefix: prefix, found: found), "\(path)")
        }
    }

    @Test func syntax() throws {
        #expect(try KVCKeyPath("a.0.b").parts == [.key("a"), .index(0), .key("b")])
        #expect(try KVCKeyPath("99999999999999999999999").parts == [.key("99999999999999999999999")])
        #expect(try KVCKeyPath("-1").parts == [.key("-1")])
        for bad in ["", ".", "a.", ".a", "a..b"] {
            #expect(throws: KeyPathSyntaxError.self) { try KVCKeyPath(bad) }
        }
    }
}
