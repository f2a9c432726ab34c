import Collector
import CommandSupport

#if canImport(Glibc)
import Glibc
#endif

exit(CollectorCLI.group.main(Array(CommandLine.arguments.dropFirst())).rawValue)
