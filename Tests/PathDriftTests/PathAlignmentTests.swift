import PathDrift
import Testing
import ViewIdentity

@Suite struct PathAlignmentTests {
    func align(_ pattern: String, _ path: String) throws -> PathAlignment {
        PathAlignment(pattern: try PathPattern(pattern), path: try ViewPath(canonical: path))
    }

    @Test func anAddedElementCostsOne() throws {
        let a = try align("A-B-C&0-0-1", "A-B-W-C&0-0-0-1")
        #expect(a.distance == 1)
        #expect(a.similarity == 0.75)
        #expect(a.steps == [.kept(old: 0, new: 0), .kept(old: 1, new: 1), .added(new: 2), .kept(old: 2, new: 3)])
    }

    @Test func aRenameCostsLessThanRemovingAndAdding() throws {
        let a = try align("A-ProductCell&0-0:*", "A-ProductListCell&0-0:4")
        // Similarity of the names 1 - 4/15; the rename costs 0.5 + 0.5 × 4/15.
        #expect(abs(a.distance - (0.5 + 0.5 * 4 / 15)) < 1e-9)
        #expect(a.steps == [.kept(old: 0, new: 0), .kept(old: 1, new: 1)])
    }

    @Test func aChangedExactIndexCostsAQuarter() throws {
        #expect(try align("A-B&0-1", "A-B&0-2").distance == 0.25)
        #expect(try align("A-B&0-*", "A-B&0-2").distance == 0)
        #expect(try align("A-B&0-1:*", "A-B&0-2").distance == 0.25)  // s:* never takes a position
    }

    @Test func wildcardsStayOnTheElementsTheyBecame() throws {
        let pattern = try PathPattern("A-T-ProductCell-Content-UIButton&0-0-0:*-0-*")
        let path = try ViewPath(canonical: "A-T-ProductListCell-Wrap-Content-UIButton&0-0-2:5-0-0-1")
        let a = PathAlignment(pattern: pattern, path: path)
        let indexes = PathAlignment.generalize(path, like: pattern, steps: a.steps)
        #expect(indexes.map(\.description) == ["0", "0", "2:*", "0", "0", "*"])
    }

    @Test func nameSimilarityIsOneMinusEditsOverLength() {
        #expect(NameSimilarity.of("UIButton", "UIButton") == 1)
        #expect(NameSimilarity.of("abc", "xyz") == 0)
        #expect(abs(NameSimilarity.of("ProductCell", "ProductListCell") - (1 - 4.0 / 15)) < 1e-9)
        #expect(NameSimilarity.of("", "") == 1)
    }
}
