import SystemCalls

/// The shared libraries an executable names directly (its ELF `DT_NEEDED` entries), read from the
/// file, so a tool can tell what kind of program it is before (or without) running it.
public enum ELFLibraries {
    /// Why the libraries of a file cannot be listed.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The `DT_NEEDED` names of the 64-bit little-endian ELF file at `path`, in order.
    public static func needed(path: String) throws(Failure) -> [String] {
        let fd: Int32
        do throws(PosixError) {
            fd = try Posix.open(path, O_RDONLY)
        } catch {
            throw Failure(path: path, reason: "cannot be opened (errno \(error.errno))")
        }
        defer { Posix.close(fd) }
        func read(_ offset: UInt64, _ count: Int) throws(Failure) -> [UInt8] {
            let bytes: [UInt8]
            do throws(PosixError) {
                bytes = try Posix.read(fd, count: count, at: offset, path: path)
            } catch {
                throw Failure(path: path, reason: "cannot be read (errno \(error.errno))")
            }
            guard bytes.count == count else { throw Failure(path: path, reason: "is shorter than its ELF headers say") }
            return bytes
        }
        let header = try read(0, 64)
        guard header[0] == 0x7F, header[1] == 0x45, header[2] == 0x4C, header[3] == 0x46 else {
            throw Failure(path: path, reason: "is not an ELF executable (a script or another format)")
        }
        guard header[4] == 2, header[5] == 1 else {
            throw Failure(path: path, reason: "is not a 64-bit little-endian ELF file")
        }
        let phoff = header.u64(0x20)
        let phentsize = Int(header.u16(0x36))
        let phnum = Int(header.u16(0x38))
        guard phentsize >= 56, phnum <= 4096 else { throw Failure(path: path, reason: "has malformed program headers") }
        let table = try read(phoff, phentsize * phnum)
        var loads: [(vaddr: UInt64, offset: UInt64, size: UInt64)] = []
        var dynamic: (offset: UInt64, size: UInt64)?
        for i in 0..<phnum {
            let base = i * phentsize
            switch table.u32(base) {
            case 1: loads.append((table.u64(base + 16), table.u64(base + 8), table.u64(base + 32)))
            case 2: dynamic = (table.u64(base + 8), table.u64(base + 32))
            default: break
            }
        }
        guard let dynamic else { return [] }  // statically linked
        guard dynamic.size <= 1 << 20 else { throw Failure(path: path, reason: "has a malformed dynamic section") }
        let entries = try read(dynamic.offset, Int(dynamic.size))
        var neededOffsets: [UInt64] = []
        var strtab: UInt64?
        var i = 0
        while i + 16 <= entries.count {
            let tag = entries.u64(i)
            let value = entries.u64(i + 8)
            if tag == 0 { break }
            if tag == 1 { neededOffsets.append(value) }
            if tag == 5 { strtab = value }
            i += 16
        }
        guard let strtab,
            let segment = loads.first(where: { strtab >= $0.vaddr && strtab < $0.vaddr + $0.size })
        else { return [] }
        let strtabOffset = strtab - segment.vaddr + segment.offset
        return try neededOffsets.map { (offset) throws(Failure) -> String in
            var name: [UInt8] = []
            // Library names are short; 4 KiB bounds a corrupt table.
            let chunk = try read(strtabOffset + offset, 1)
            name.append(contentsOf: chunk)
            var at = strtabOffset + offset + 1
            while name.last != 0, name.count < 4096 {
                name.append(contentsOf: try read(at, 1))
                at += 1
            }
            return String(decoding: name.dropLast(), as: UTF8.self)
        }
    }
}

extension [UInt8] {
    fileprivate func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    fileprivate func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[at + $1]) << (8 * $1) } }
    fileprivate func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[at + $1]) << (8 * $1) } }
}
