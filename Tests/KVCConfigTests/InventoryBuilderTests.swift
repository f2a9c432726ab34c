import Testing

@testable import KVCConfig
@testable import SourceInventory

@Suite struct InventoryBuilderTests {
    static let home = #"""
        import UIKit
        /* a comment with class Fake { @objc func nope() } /* nested */ still comment */
        // class LineComment { @objc func nope() }
        final class HomeViewController: UIViewController {
            let s = "class Bogus { func x(_ sender: UIButton) } \(foo("}")) {"
            let raw = #"a "quoted" } class Raw {"#
            let multi = """
                } class Multi { @objc func inside() {}
                """
            class var shared: Int { 1 }
            var computed: Int { get { 2 } }
            override func viewDidLoad() { super.viewDidLoad() }
            @objc func onMyFavBtnPressed(_ sender: UIButton) {
                func nested(_ sender: UIButton) {}
            }
            @IBAction func onMyFavBtnPressed_UA(_ sender: Any) {}
            func onShareBtnPressed(_ sender: UIButton) {}
            func helper(x: Int) {}
            @objc(customTap:) func tap(_ g: UITapGestureRecognizer) {}
            func tap2(_ a: UIButton, forEvent e: UIEvent) {}
            static func staticOne(_ sender: UIButton) {}
            class func classOne(_ sender: UIButton) {}
            @objc private dynamic func twoUnlabelled(_ a: Int, _ b: Int) {}
            func generic<T>(_ sender: T) {}
            func withClosure(_ sender: UIButton, completion: @escaping () -> Void = { }) {}
            @objc func `default`() {}
            static func == (a: HomeViewController, b: HomeViewController) -> Bool { true }
            struct Inner { class Deep { @objc func go() {} } }
        }
        extension HomeViewController {
            @objc func fromExtension(sender: UIButton) {}
        }
        extension HomeViewController.Inner.Deep {
            @objc func more() {}
        }
        protocol Tappable { func tap(_ sender: UIButton) }
        struct NotATarget { func tap(_ sender: UIButton) {} }
        @objcMembers class Everything: NSObject {
            func a() {}
            func b(_ x: Int) {}
        }
        class Empty {}
        """#

    @Test func actionsPerClassAsSelectors() {
        let inv = InventoryBuilder.inventory(source: Self.home)
        #expect(
            inv.classes == [
                "HomeViewController": [
                    "viewDidLoad", "onMyFavBtnPressed:", "onMyFavBtnPressed_UA:", "onShareBtnPressed:", "customTap:",
                    "tap2:forEvent:", "twoUnlabelled::", "generic:", "withClosure:completion:", "default", "fromExtensionWithSender:",
                ],
                "HomeViewController.Inner.Deep": ["go", "more"],
                "Everything": ["a", "b:"],
                "Empty": [],
            ])
    }

    @Test func jsonTextIsSortedOneClassPerLine() {
        let inv = InventoryBuilder.inventory(source: Self.home)
        #expect(
            inv.jsonText == """
                {
                  "Empty": [],
                  "Everything": ["a","b:"],
                  "HomeViewController": ["customTap:","default","fromExtensionWithSender:","generic:","onMyFavBtnPressed:","onMyFavBtnPressed_UA:","onShareBtnPressed:","tap2:forEvent:","twoUnlabelled::","viewDidLoad","withClosure:completion:"],
                  "HomeViewController.Inner.Deep": ["go","more"]
                }

                """)
        #expect(Inventory().jsonText == "{}\n")
    }

    @Test func inventoryJSONReadsBack() throws {
        let inv = InventoryBuilder.inventory(source: Self.home)
        #expect(try Inventory.parse(data: Array(inv.jsonText.utf8), file: "inv.json") == inv)
        #expect(try Inventory.parse(data: Array(PlistText.document(inv.json).utf8), file: "inv.plist") == inv)
    }

    @Test func inventoryErrorsNameTheirPlace() {
        do {
            _ = try Inventory.parse(data: Array(#"{"A":["ok:", 3, "bad name"],"B":"x"}"#.utf8), file: "inv.json")
            Issue.record("parsed")
        } catch {
            #expect(error.problems.map(\.location.keyPath) == ["A[1]", "A[2]", "B"])
            #expect(error.problems.map(\.code) == [.badSelector, .badSelector, .wrongType])
        }
        #expect(throws: ConfigError.self) { try Inventory.parse(data: Array("[]".utf8), file: "inv.json") }
    }

    @Test func unterminatedCodeDoesNotHang() {
        for text in ["class A { @objc func f(", "class A { let s = \"unterminated\n @objc func g() {} }", "/* never closed class B {", "class", "@objc(", "extension A.", "#\"", "func"] {
            _ = InventoryBuilder.inventory(source: text)
        }
        #expect(InventoryBuilder.inventory(source: "class A { let s = \"open\n @objc func g() {} }").classes["A"] == ["g"])
    }

    @Test func directoriesAreScannedRecursivelySkippingHiddenFolders() throws {
        let dir = Fixture.directory([
            "A.swift": "class A { @objc func a() {} }",
            "sub/B.swift": "class B { @IBAction func b(_ sender: Any) {} }",
            ".build/C.swift": "class C { @objc func c() {} }",
            "notes.txt": "class D { @objc func d() {} }",
        ])
        let inv = try InventoryBuilder.inventory(directory: dir)
        #expect(inv.classes == ["A": ["a"], "B": ["b:"]])
        #expect(try InventoryBuilder.inventory(directory: dir + "/A.swift").classes == ["A": ["a"]])
        #expect(throws: InventoryError.self) { try InventoryBuilder.inventory(directory: dir + "/nope") }
    }
}

@Suite struct InventoryDelegateSelectorTests {
    /// UIKit renames some delegate selectors for Swift; the hooks report them by their Objective-C
    /// names, so the inventory must list those, not the names Swift's rules give.
    @Test func hookedDelegateMethodsAreListedByTheirObjectiveCSelectors() {
        let source = """
            final class HomeViewController: UIViewController {
                func tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {}
                func collectionView(_ collectionView: UICollectionView, didSelectItemAt indexPath: IndexPath) {}
                func scrollViewDidEndDragging(_ scrollView: UIScrollView, willDecelerate decelerate: Bool) {}
                func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { 0 }
            }
            """
        let actions = InventoryBuilder.inventory(source: source).classes["HomeViewController"] ?? []
        #expect(actions.contains("tableView:didSelectRowAtIndexPath:"))
        #expect(actions.contains("collectionView:didSelectItemAtIndexPath:"))
        #expect(actions.contains("scrollViewDidEndDragging:willDecelerate:"))
        #expect(!actions.contains("tableView:didSelectRowAt:"))
        #expect(!actions.contains("tableView:numberOfRowsInSection:"))
    }
}
