import CommandSupport
import Foundation
import ViewIdentity

/// `autotrack-agent md5`: the MD5 digest of a text, a file or standard input, in lowercase hex.
public struct MD5Command: Command {
    public static let name = "md5"
    public static let abstract = "prints the MD5 digest (lowercase hex) of a text, a file or standard input"
    public static let discussion = """
        Prints the RFC 1321 MD5 digest in lowercase hex on one line: of the UTF-8 bytes of TEXT
        (no newline added), of the file at PATH, or of standard input ('-'). Files and standard
        input are read in 1 MiB pieces, so any size works in little memory. A viewId is the md5
        of a canonical path.

        A TEXT that starts with '-' goes after '--': autotrack-agent md5 -- -x

        EXIT STATUS: 0 printed; 1 unreadable file or input; 2 usage error.
        """
    static let file = Option.single("file", "PATH", help: "digest the file at PATH")
    public static let optionGroups = [OptionGroup([file])]
    public static let usage = [Usage(options: [], arguments: "TEXT"), Usage(options: [file.required()]), Usage(options: [], arguments: "-")]
    public static let examples = """
        autotrack-agent md5 abc
        900150983cd24fb0d6963f7d28e17f72
        autotrack-agent md5 --file Examples/events.ndjson
        printf abc | autotrack-agent md5 -
        """

    /// Where the bytes come from.
    enum Source: Equatable {
        case text(String)
        case file(String)
        case standardInput
    }

    let source: Source

    public init(arguments: inout Arguments) throws(UsageError) {
        let file = try arguments.value(Self.file)
        let rest = try arguments.positionals()
        switch (file, rest.count) {
        case (let path?, 0):
            source = .file(path)
        case (nil, 1):
            source = rest[0] == "-" ? .standardInput : .text(rest[0])
        case (nil, 0):
            throw UsageError("give a TEXT, --file PATH, or '-' for standard input")
        case (.some, _):
            throw UsageError("give either --file PATH or a TEXT, not both")
        default:
            throw UsageError("give one TEXT (quote it if it has spaces), not \(rest.count)")
        }
    }

    public func run(io: any OutputStreams) -> ExitCode {
        switch source {
        case .text(let text):
            io.print(MD5.hexDigest(utf8: text))
            return .success
        case .file(let path):
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                io.printError("autotrack-agent md5: '\(path)' is a directory; give the path of a file")
                return .failure
            }
            do {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                io.print(try MD5Command.hexDigest(reading: handle))
                return .success
            } catch {
                io.printError("autotrack-agent md5: cannot read '\(path)'; check it exists and is readable")
                return .failure
            }
        case .standardInput:
            do {
                io.print(try MD5Command.hexDigest(reading: FileHandle.standardInput))
                return .success
            } catch {
                io.printError("autotrack-agent md5: cannot read standard input")
                return .failure
            }
        }
    }

    /// Streams `handle` to its end through MD5 in 1 MiB pieces.
    public static func hexDigest(reading handle: FileHandle, pieceSize: Int = 1 << 20) throws -> String {
        var hasher = MD5()
        while let piece = try handle.read(upToCount: pieceSize), !piece.isEmpty {
            piece.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.hexDigest
    }
}
