import Testing
import ViewIdentity

/// Reading canonical forms back, and errors that point at the bad character.
@Suite struct ViewPathParsingTests {
    @Test(arguments: [
        "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-1",
        "Badge&0",
        "DetailViewController(gift)-UIView-UIButton&0-0-12",
        "HomeViewController-Outer.Inner-Box<Shop.Item>&0-0-0",
        "(unknown context at $10a0c).Local&0",
        "Café(é)-商品&0-10:200",
    ])
    func roundTrips(text: String) throws {
        let p = try ViewPath(canonical: text)
        #expect(p.canonical == text)
    }

    @Test func readsNamesAndIndexes() throws {
        let p = try ViewPath(canonical: "Home-ProductCell-UIButton&0-3:14-2")
        #expect(p.elements == [
            .init(name: "Home", index: .position(0)),
            .init(name: "ProductCell", index: .cell(CellIndexPath(section: 3, row: 14))),
            .init(name: "UIButton", index: .position(2)),
        ])
        #expect(try PathIndex(parsing: "3:14") == .cell(CellIndexPath(section: 3, row: 14)))
        #expect(try PathIndex(parsing: "7") == .position(7))
    }

    /// Each bad text with the character offset the error must point at.
    @Test(arguments: [
        ("", 0, "an empty path"),
        ("Home-UIView", 11, "missing '&'"),
        ("Home-UIView&0", 13, "2 names but only 1 indexes"),
        ("Home&0-1", 7, "more indexes than names"),
        ("Home--UIView&0-0-0", 5, "an empty name"),
        ("-Home&0-0", 0, "an empty name"),
        ("Home-&0-0", 5, "an empty name"),
        ("Home-UIView&0--0", 14, "an empty index"),
        ("Home-UIView&0-", 14, "a missing index at the end"),
        ("Home&", 5, "a missing index at the end"),
        ("Home-UI*View&0-0", 7, "'*' in a name"),
        ("Home-UIView&0-x", 14, "'x' is not a digit"),
        ("Home-UIView&0-1&2", 15, "a second '&'"),
        ("Home-UIView&0-01", 14, "a leading zero"),
        ("Home-UIView&0--1", 14, "an empty index"),
        ("Home-UIView&0-*", 14, "a wildcard in a path"),
        ("Home-Cell&0-0:*", 14, "a wildcard '*' where the row must be a number"),
        ("Home-Cell&0-:3", 12, "an empty section"),
        ("Home-Cell&0-3:", 14, "an empty row"),
        ("Home-Cell&0-3:4:5", 15, "':' is not a digit"),
        ("Home-Cell&0-99999999999999999999", 12, "is too large"),
        (" Home&0", 0, "starts with a space"),
        ("Home &0", 4, "ends with a space"),
        ("Ho\tme&0", 2, "a control character"),
        ("Café-X&0-y", 9, "'y' is not a digit"),
    ])
    func errorsPointAtTheBadCharacter(text: String, offset: Int, reason: String) {
        #expect {
            _ = try ViewPath(canonical: text)
        } throws: { error in
            guard let e = error as? ViewPathParseError else { return false }
            return e.offset == offset && e.reason.contains(reason) && e.text == text
        }
    }

    @Test func theDescriptionIsOneLineAndTheDiagramShowsACaret() throws {
        let error = try #require(throws: ViewPathParseError.self) { try ViewPath(canonical: "Home-UIView&0-x") }
        #expect(error.description == "'x' is not a digit in the index at character 15 of \"Home-UIView&0-x\"")
        #expect(error.caretDiagram == "  Home-UIView&0-x\n  " + String(repeating: " ", count: 14) + "^")
    }
}

/// viewpath.md §3: patterns with `*` and `s:*`.
@Suite struct PathPatternTests {
    let base = "HomeViewController-UIView-UITableView-ProductCell"

    func cellPath(section: Int, row: Int) throws -> ViewPath {
        try ViewPath(canonical: "\(base)&0-0-0-\(section):\(row)")
    }

    @Test func anExactPatternMatchesOnlyItsPath() throws {
        let pattern = try PathPattern("\(base)&0-0-0-0:2")
        #expect(pattern.isExact)
        #expect(pattern.matches(try cellPath(section: 0, row: 2)))
        #expect(!pattern.matches(try cellPath(section: 0, row: 3)))
        #expect(!pattern.matches(try cellPath(section: 1, row: 2)))
        #expect(PathPattern(exactly: try cellPath(section: 0, row: 2)) == pattern)
    }

    @Test func starMatchesAnyPositionOrCellIndex() throws {
        let pattern = try PathPattern("\(base)&0-0-*-*")
        #expect(!pattern.isExact)
        #expect(pattern.matches(try cellPath(section: 4, row: 9)))
        #expect(pattern.matches(try ViewPath(canonical: "\(base)&0-0-3-5")))
    }

    @Test func sectionStarMatchesAnyRowOfThatSectionOnly() throws {
        let pattern = try PathPattern("\(base)&0-0-0-1:*")
        #expect(pattern.indexes.last == .anyRow(section: 1))
        #expect(pattern.matches(try cellPath(section: 1, row: 0)))
        #expect(pattern.matches(try cellPath(section: 1, row: 1234)))
        #expect(!pattern.matches(try cellPath(section: 0, row: 1)))
        // A position is not a cell index, so `s:*` does not match it.
        #expect(!pattern.matches(try ViewPath(canonical: "\(base)&0-0-0-1")))
    }

    @Test func theElementCountMustBeEqual() throws {
        let pattern = try PathPattern("\(base)&*-*-*-*")
        #expect(!pattern.matches(try ViewPath(canonical: "\(base)-UIButton&0-0-0-0:1-0")))
        #expect(!pattern.matches(try ViewPath(canonical: "HomeViewController-UIView-UITableView&0-0-0")))
    }

    @Test func namesMatchExactlyByteForByte() throws {
        let pattern = try PathPattern("\(base)&*-*-*-*")
        #expect(!pattern.matches(try ViewPath(canonical: "HomeViewController-UIView-UITableView-ProductCells&0-0-0-0:1")))
        #expect(!pattern.matches(try ViewPath(canonical: "HomeViewController-UIView-UITableView-productCell&0-0-0-0:1")))
        let composed = try PathPattern("Caf\u{E9}&*")
        #expect(composed.matches(try ViewPath(canonical: "Caf\u{E9}&0")))
        #expect(!composed.matches(try ViewPath(canonical: "Cafe\u{301}&0")))
    }

    @Test func patternsMatchComputedPaths() throws {
        let buttons = [node("UIButton"), node("UIButton")]
        let cell = node("Shop.ProductCell", .cell, indexPath: (0, 7), [node("UITableViewCellContentView", [buttons[0], node("UILabel"), buttons[1]])])
        let root = node("Shop.HomeViewController", .controller, [node("UIView", [node("UITableView", [cell])])])
        let anyRowSecondButton = try PathPattern("\(base)-UITableViewCellContentView-UIButton&0-0-0-0:*-0-1")
        #expect(anyRowSecondButton.matches(path(of: buttons[1], in: root)))
        #expect(!anyRowSecondButton.matches(path(of: buttons[0], in: root)))
    }

    @Test(arguments: [
        ("Home-UIView&0-*:3", 14, "a wildcard"),
        ("Home-UIView&0-*:*", 14, "a wildcard"),
        ("Home-UIView&0-**", 14, "a wildcard"),
        ("Home-UIView&0-1:**", 16, "a wildcard '*' where the row must be a number"),
        ("Home-UI*&0-*", 7, "'*' in a name"),
        ("Home-UIView&0-01:*", 14, "a leading zero"),
        ("Home-UIView&*", 13, "2 names but only 1 indexes"),
    ])
    func patternErrorsPointAtTheBadCharacter(text: String, offset: Int, reason: String) {
        #expect {
            _ = try PathPattern(text)
        } throws: { error in
            guard let e = error as? ViewPathParseError else { return false }
            return e.offset == offset && e.reason.contains(reason)
        }
    }

    @Test func aPatternPrintsAsWritten() throws {
        let text = "\(base)&0-*-0-0:*"
        let pattern = try PathPattern(text)
        #expect(pattern.description == text)
        #expect(pattern.indexes.map(\.description) == ["0", "*", "0", "0:*"])
        #expect(pattern.elementCount == 4)
    }
}
