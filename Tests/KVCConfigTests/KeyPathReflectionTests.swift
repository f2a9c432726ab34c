import EventModel
import Foundation
import Testing

@testable import KVCConfig

private struct Price {
    var amount: Double
    var currency: String
}

private enum Status {
    case draft
    case live(since: Int)
    case archived(String, reason: String)
}

private enum Color: String {
    case red, green
}

@propertyWrapper private struct Clamped {
    var wrappedValue: Int
}

private struct Product {
    var id: String
    var price: Price
    var tags: [String]
    var attributes: [String: Any]
    var byNumber: [Int: String]
    var set: Set<Int>
    var note: String?
    var nested: Int??
    var status: Status
    var color: Color
    var pair: (first: Int, String)
    @Clamped var stock: Int
    var props: JSONValue
}

private class Base {
    var baseName = "base"
}

private final class Cell: Base {
    var product: Product?
    lazy var computedOnce: String = "lazy-" + baseName
    weak var parent: Cell?
    var next: Cell?
    var items: [Any] = []
}

/// A facade answering keys itself, including one reflection could not see.
private struct Facade: KeyValueReadable {
    var store: [String: Int]
    func value(forKey key: String) -> Any? {
        key == "total" ? store.values.reduce(0, +) : store[key]
    }
}

@Suite struct KeyPathReflectionTests {
    fileprivate static func product() -> Product {
        Product(
            id: "p-42", price: Price(amount: 9.5, currency: "EUR"), tags: ["new", "sale"],
            attributes: ["size": "M", "dims": ["w": 3]], byNumber: [7: "seven"], set: [1, 2], note: nil, nested: .some(.some(5)),
            status: .archived("2024", reason: "old"), color: .green, pair: (first: 1, "two"), stock: 3,
            props: ["deep": ["x": 1]])
    }

    fileprivate func read(_ path: String, _ root: Any) throws -> Result<JSONValue, KeyPathMiss> {
        try KVCKeyPath(path).read(reflecting: root)
    }

    fileprivate func value(_ path: String, _ root: Any) throws -> JSONValue {
        try read(path, root).get()
    }

    fileprivate func miss(_ path: String, _ root: Any) throws -> KeyPathMiss {
        switch try read(path, root) {
        case .success(let v):
            Issue.record("\(path) read \(v)")
            return KeyPathMiss(missingKey: "", resolvedPrefix: "")
        case .failure(let m): return m
        }
    }

    @Test func structsAndNestedStructs() throws {
        let p = Self.product()
        #expect(try value("id", p) == "p-42")
        #expect(try value("price.amount", p) == 9.5)
        #expect(try value("price", p) == ["amount": 9.5, "currency": "EUR"])
        #expect(try miss("price.cents", p) == KeyPathMiss(missingKey: "cents", resolvedPrefix: "price", found: "a Price without it"))
    }

    @Test func arraysByIndexAndOutOfRange() throws {
        let p = Self.product()
        #expect(try value("tags.1", p) == "sale")
        #expect(try value("tags", p) == ["new", "sale"])
        #expect(try miss("tags.2", p) == KeyPathMiss(missingKey: "2", resolvedPrefix: "tags", found: "a collection of 2"))
        #expect(try miss("tags.first", p).missingKey == "first")
        #expect(try miss("set.0", p).found.contains("a set"))
        #expect(try value("set", p) == [1, 2], "sets convert sorted")
    }

    @Test func dictionariesWithStringKeys() throws {
        let p = Self.product()
        #expect(try value("attributes.size", p) == "M")
        #expect(try value("attributes.dims.w", p) == 3)
        #expect(try value("byNumber.7", p) == "seven")
        #expect(try miss("attributes.color", p).found.contains("a dictionary of 2"))
        #expect(try value("attributes", p) == ["dims": ["w": 3], "size": "M"], "keys sorted")
    }

    @Test func optionalsUnwrapAndNilNamesNothing() throws {
        let p = Self.product()
        #expect(try value("nested", p) == 5)
        #expect(try value("note", p) == .null)
        #expect(try miss("note.count", p) == KeyPathMiss(missingKey: "count", resolvedPrefix: "note", found: "nil"))
        let cell = Cell()
        #expect(try miss("product.id", cell) == KeyPathMiss(missingKey: "id", resolvedPrefix: "product", found: "nil"))
        cell.product = Self.product()
        #expect(try value("product.price.currency", cell) == "EUR")
        #expect(try value("product.id", Optional(Optional(cell)) as Any) == "p-42")
    }

    @Test func enumsByCaseName() throws {
        let p = Self.product()
        #expect(try value("status.archived.reason", p) == "old")
        #expect(try value("status.archived.0", p) == "2024")
        #expect(try value("status", p) == ["archived": ["0": "2024", "reason": "old"]])
        #expect(try miss("status.live", p).found == "the case .archived")
        #expect(try value("live.since", Status.live(since: 3)) == 3)
        #expect(try value("live", Status.live(since: 3)) == 3)
        #expect(try miss("draft", Status.draft).found == "the case .draft")
        #expect(JSONValue(reflecting: Status.draft) == "draft")
        #expect(try value("color", p) == "green", "raw values convert to the raw value")
        #expect(try value("color.rawValue", p) == "green")
    }

    @Test func tuplesByPositionOrLabel() throws {
        let p = Self.product()
        #expect(try value("pair.first", p) == 1)
        #expect(try value("pair.1", p) == "two")
        #expect(try miss("pair.2", p).found == "a tuple of 2")
        #expect(JSONValue(reflecting: (1, "a")) == [1, "a"])
    }

    @Test func classesIncludingSuperclassAndLazy() throws {
        let cell = Cell()
        #expect(try value("baseName", cell) == "base")
        #expect(try miss("computedOnce", cell).found == "a lazy property not yet computed")
        _ = cell.computedOnce
        #expect(try value("computedOnce", cell) == "lazy-base")
        #expect(try value("stock", Self.product()) == 3, "property wrappers read through wrappedValue")
    }

    @Test func jsonInsideSwiftValues() throws {
        let p = Self.product()
        #expect(try value("props.deep.x", p) == 1)
        #expect(try miss("props.deep.y", p) == KeyPathMiss(missingKey: "y", resolvedPrefix: "props.deep", found: "an object without it"))
    }

    @Test func typesThatAnswerKeysThemselves() throws {
        let f = Facade(store: ["a": 2, "b": 3])
        #expect(try value("total", f) == 5)
        #expect(try value("facade.b", ["facade": f]) == 3)
        #expect(try miss("c", f).found.contains("does not answer it"))
    }

    @Test func cyclesAreBoundedByTheKeyPath() throws {
        let a = Cell()
        let b = Cell()
        a.next = b
        b.next = a
        b.parent = a
        a.items = [a, b, "x"]
        // Walking round the cycle only goes as far as the key path says.
        let long = Array(repeating: "next", count: 200).joined(separator: ".") + ".baseName"
        #expect(try value(long, a) == "base")
        // Converting a cyclic value stops at the cycle instead of recursing forever.
        let converted = JSONValue(reflecting: a)
        let next = try #require(converted["next"])
        #expect(next["next"] == .null)
        #expect(converted["items"]?.arrayValue?.first == .null)
    }

    @Test func deepNestingIsCutOff() throws {
        var v: Any = "leaf"
        for _ in 0..<200 { v = ["k": v] }
        #expect(try value(Array(repeating: "k", count: 200).joined(separator: "."), v) == "leaf")
        var depth = 0
        var cur: JSONValue? = JSONValue(reflecting: v, maxDepth: 16)
        while let c = cur, case .object = c {
            depth += 1
            cur = c["k"]
        }
        #expect(depth == 16)
        #expect(cur == .null)
    }

    @Test func hostileScalars() throws {
        #expect(JSONValue(reflecting: Double.nan) == .null)
        #expect(JSONValue(reflecting: Float.infinity) == .null)
        #expect(JSONValue(reflecting: UInt64.max) == .double(Double(UInt64.max)))
        #expect(JSONValue(reflecting: UInt8(7)) == 7)
        #expect(JSONValue(reflecting: Optional<Int>.none as Any) == .null)
        #expect(JSONValue(reflecting: Date(timeIntervalSince1970: 1.5)) == 1500)
        #expect(JSONValue(reflecting: URL(string: "https://x.test/a")!) == "https://x.test/a")
        #expect(JSONValue(reflecting: Character("é")) == "é")
        let f: () -> Void = {}
        #expect(JSONValue(reflecting: f).stringValue != nil)
        #expect(try miss("x", 5).found == "an Int without it")
        #expect(try miss("0", "text").missingKey == "0")
    }

    @Test func propValuesAreScalars() {
        #expect(JSONValue.string("a").propValue == "a")
        #expect(JSONValue.array([1, 2]).propValue == "[1,2]")
        #expect(JSONValue(reflecting: Price(amount: 1, currency: "X")).propValue == #"{"amount":1,"currency":"X"}"#)
    }
}
