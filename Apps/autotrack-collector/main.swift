import Collector
import CommandSupport
import SystemCalls

exit(CollectorCLI.group.main(Array(CommandLine.arguments.dropFirst())).rawValue)
