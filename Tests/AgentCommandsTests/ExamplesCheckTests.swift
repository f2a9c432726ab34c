import AgentCommands
import CommandSupport
import Foundation
import TestSupport
import Testing

/// The shipped example configuration must match the demo app's source, as a team's CI would check it.
@Suite struct ExamplesCheckTests {
    @Test func theExampleConfigurationMatchesTheDemoShopSource() {
        let root = Fixtures.repositoryRoot.path
        let io = CapturedStreams()
        let code = AgentCLI.group.main(
            [
                "check", "--config", "\(root)/Examples/shop-events.json", "--config", "\(root)/Examples/shop-labels.plist",
                "--config", "\(root)/Examples/shop-rules.json", "--inventory", "\(root)/Modules/DemoShop",
            ], io: io)
        #expect(code == .success, "stdout: \(io.standardOutput) stderr: \(io.standardError)")
        #expect(io.standardOutput.hasPrefix("ok: "))
    }
}
