/// Whether a program is a GTK 4 application, the kind `autotrack-agent run` can track.
public enum GtkProgram {
    /// The library every GTK 4 application links.
    public static let libraryPrefix = "libgtk-4.so"

    /// True when the executable at `path` links GTK 4 directly.
    public static func isGtk4(path: String) -> Bool {
        guard let libraries = try? ELFLibraries.needed(path: path) else { return false }
        return libraries.contains { $0.hasPrefix(libraryPrefix) }
    }

    /// The one line printed when a program is run untracked.
    public static func untrackedNotice(program: String) -> String {
        "autotrack: \(program) is not a GTK 4 application (it does not link \(libraryPrefix)) nor a GNUstep one (\(GNUstepProgram.libraryPrefix)); it runs untouched and nothing is tracked"
    }
}
