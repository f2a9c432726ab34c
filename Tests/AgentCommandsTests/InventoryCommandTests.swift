import AgentCommands
import CommandSupport
import Foundation
import Testing
import TestSupport

@Suite struct InventoryCommandTests {
    func run(_ args: [String]) -> (ExitCode, String, String) {
        let io = CapturedStreams()
        let code = AgentCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    @Test func printsSortedInventoryOfASourceTree() throws {
        let dir = Fixtures.temporaryDirectory("inventory-command")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Sub"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(
            atPath: dir.appendingPathComponent("Home.swift").path,
            contents: Data(
                """
                final class HomeViewController: UIViewController {
                    override func viewDidLoad() {}
                    @objc func onFavBtnPressed(_ sender: UIButton) {}
                    @IBAction func onShareBtnPressed_UA(_ sender: Any) {}
                    private func helper() {}
                }
                """.utf8)))
        #expect(FileManager.default.createFile(
            atPath: dir.appendingPathComponent("Sub/Cart.swift").path,
            contents: Data("class CartCell { func tap(_ b: UIButton, forEvent e: UIEvent) {} }".utf8)))
        let (code, out, err) = run(["inventory", dir.path])
        #expect(code == .success)
        #expect(err == "")
        #expect(
            out == """
                {
                  "CartCell": ["tap:forEvent:"],
                  "HomeViewController": ["onFavBtnPressed:","onShareBtnPressed_UA:","viewDidLoad"]
                }

                """)
    }

    @Test func missingPathIsAnErrorAndNoPathIsUsage() {
        let (code, out, err) = run(["inventory", "/nonexistent/autotrack-src"])
        #expect(code == .failure)
        #expect(out == "")
        #expect(err == "autotrack-agent inventory: /nonexistent/autotrack-src: no such file or directory\n")
        let (usage, _, usageErr) = run(["inventory"])
        #expect(usage == .usage)
        #expect(usageErr.contains("missing PATH"))
        #expect(run(["inventory", "--bogus", "x"]).0 == .usage)
    }

    @Test func help() {
        let (code, out, _) = run(["inventory", "--help"])
        #expect(code == .success)
        #expect(out.contains("USAGE: autotrack-agent inventory PATH"))
        #expect(out.contains("EXAMPLES:"))
    }
}
