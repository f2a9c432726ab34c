import AgentCommands
import CommandSupport

#if canImport(Glibc)
import Glibc
#endif

exit(AgentCLI.main(Array(CommandLine.arguments.dropFirst())).rawValue)
