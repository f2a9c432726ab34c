import Foundation
import SystemCalls

/// Writes a command's `--out` file. A regular file (or none yet) is replaced whole and at once,
/// through a file beside it, so a reader never sees half of it; through a symbolic link, the
/// file it names is (the link stays). Anything else that is not a directory (a device such as
/// `/dev/null` or `/dev/stdout`, a FIFO) is written in place: replacing it would put a regular
/// file where the device was, for every program on the machine.
func writeOutputFile(_ bytes: [UInt8], to path: String) throws {
    let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let type = (try? FileManager.default.attributesOfItem(atPath: target))?[.type] as? FileAttributeType
    switch type {
    case nil, .typeRegular?:
        try Data(bytes).write(to: URL(fileURLWithPath: target), options: .atomic)
    case .typeDirectory?:
        throw CocoaError(.fileWriteInvalidFileName)
    default:
        let fd = try Posix.open(target, O_WRONLY)
        defer { Posix.close(fd) }
        try Posix.writeAll(fd, bytes, path: target)
    }
}
