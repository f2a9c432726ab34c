import TestSupport
import Testing
import ViewIdentity

@Suite struct SpecExampleTests {
    @Test func theSpecExamplePath() throws {
        let tree = try ViewTree(json: Array(Fixtures.specExampleTree.utf8))
        let button = try #require(tree.node(id: "btn1"))
        let path = ViewPath(of: button)
        #expect(
            path.canonical
                == "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-1")
        #expect(
            path.xpath
                == "HomeViewController[0]/UIView[0]/UITableView[0]/ProductCell[0:2]/UITableViewCellContentView[0]/UIButton[1]")
        #expect(path.viewID.hex == MD5.hexDigest(of: Array(path.canonical.utf8)))
        #expect(try ViewPath(canonical: path.canonical) == path)
    }

    @Test func md5KnownAnswers() {
        #expect(MD5.hexDigest(of: Array("".utf8)) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hexDigest(of: Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
    }
}
