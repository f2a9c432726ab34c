import EventModel
import Testing

@testable import KVCConfig

/// Syntax errors name the line and column, and for plists the key path reached.
@Suite struct SyntaxErrorTests {
    func problem(_ text: String, file: String = "f") throws -> ConfigProblem {
        let r = ConfigLoader.read(data: Array(text.utf8), file: file)
        #expect(r.problems.count == 1, "\(r.problems)")
        return try #require(r.problems.first)
    }

    @Test func jsonSyntaxErrorHasLineAndColumn() throws {
        let p = try problem("{\n  \"Home\": {\n    \"PageEventIDs\": ,\n  }\n}", file: "a.json")
        #expect(p.code == .syntax)
        #expect(p.location.line == 3)
        #expect(p.location.column != nil)
        #expect(p.description.hasPrefix("a.json:3:"))
        #expect(p.description.contains("expected well-formed JSON"))
    }

    @Test(arguments: [
        // (text, line, column, key path, says)
        ("<plist><dict><key>A</key><string>x</string><key>B</key></dict></plist>", 1, 56, "B", "a value"),
        ("<plist><dict>\n  <key>A</key>\n  <dict>\n    <key>Enter</key>\n    <string>x</strin>\n  </dict>\n</dict></plist>", 5, 14, "A.Enter", "</string>"),
        ("<plist><dict><key>A</key><date>2020-01-01T00:00:00Z</date></dict></plist>", 1, 26, "A", "<date>"),
        ("<plist><array><string>a</string><data>AAAA</data></array></plist>", 1, 33, "[1]", "<data>"),
        ("<plist><dict><key>A</key><integer>1</integer><key>A</key><integer>2</integer></dict></plist>", 1, 46, "A", "each key once"),
        ("<plist><dict><key>A</key><integer>1.5</integer></dict></plist>", 1, 26, "A", "a whole number"),
        ("<plist><dict><key>A</key><real>x</real></dict></plist>", 1, 26, "A", "a finite number"),
        ("<plist><dict><key>A</key><string>a &bogus; b</string></dict></plist>", 1, 36, "A", "an entity"),
        ("<plist><dict><string>x</string></dict></plist>", 1, 14, "", "<key> or </dict>"),
        ("<plist><string>x</string>", 1, 26, "", "an element"),
        ("<plist><string>x</string></plist> trailing", 1, 35, "", "nothing after </plist>"),
        ("<dict></dict>", 1, 1, "", "<plist> as the root element"),
        ("<plist><foo/></plist>", 1, 8, "", "a property-list element"),
        ("<plist>\n<!-- never closed", 2, 1, "", "-->"),
        ("<plist><dict><key>A</key><string>x", 1, 35, "A", "</string>"),
    ] as [(String, Int, Int, String, String)])
    func plistSyntaxErrors(text: String, line: Int, column: Int, keyPath: String, says: String) throws {
        let p = try problem(text)
        #expect(p.code == .syntax)
        #expect(p.location.line == line, "\(p)")
        #expect(p.location.column == column, "\(p)")
        #expect(p.location.keyPath == keyPath, "\(p)")
        #expect(p.description.contains(says), "\(p)")
    }

    @Test func unknownFormats() throws {
        #expect(try problem("").found == "an empty file")
        #expect(try problem(" \n").found == "an empty file")
        #expect(try problem("bplist00\u{1}\u{2}").found.contains("binary property list"))
        let garbage = try problem("HomeViewController: yes")
        #expect(garbage.expected == "a JSON document or an XML property list")
        #expect(garbage.found.contains("HomeViewController"))
    }

    @Test func plistValuesAndEscapes() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <!-- leading comment -->
            <plist version="1.0">
            <dict>
              <key>s</key><string>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#65;&#x42; <![CDATA[<raw & text>]]></string>
              <key>e</key><string/>
              <key>i</key><integer> -42 </integer>
              <key>r</key><real>2.5</real>
              <key>t</key><true/>
              <key>f</key><false></false>
              <key>a</key><array><integer>1</integer><!-- inside --><array/></array>
              <key>d</key><dict/>
              <key>ü</key><string>ünïcode</string>
            </dict>
            </plist>
            """
        let v = try PlistReader.parse(Array(text.utf8), file: "f")
        #expect(
            v
                == .object(
                    JSONObject([
                        ("s", "a <b> & \"c\" 'd' AB <raw & text>"), ("e", ""), ("i", -42), ("r", 2.5), ("t", true), ("f", false),
                        ("a", [1, []]), ("d", .object(JSONObject())), ("ü", "ünïcode"),
                    ])))
        #expect(try JSONValue.parse("{\"k\":[1]}") == PlistReader.parse(Array(PlistText.document(["k": [1]]).utf8), file: "f"))
    }

    @Test func hostileNestingIsAnErrorNotACrash() throws {
        let deep = "<plist>" + String(repeating: "<array>", count: 5000) + String(repeating: "</array>", count: 5000) + "</plist>"
        let p = try problem(deep)
        #expect(p.description.contains("levels of nesting"))
    }
}
