import AgentCommands
import CommandSupport
import SystemCalls

exit(AgentCLI.main(Array(CommandLine.arguments.dropFirst())).rawValue)
