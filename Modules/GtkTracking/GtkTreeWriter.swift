import CGtk
import EventModel
import Foundation
import SystemCalls
import ViewIdentity

/// Writes an entered page's widget tree as view-tree JSON (docs/viewpath.md §1), so that
/// configuration authors write rules against a real app's screens (docs/gtk.md "Trees").
///
/// Written once the page has been laid out and painted, so `frame` holds real positions.
final class GtkTreeWriter {
    let directory: String

    init(directory: String) {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Writes `page`'s tree after its window's next paint (at once when it has no frame clock).
    func writeAfterNextPaint(_ page: GtkWidgetNode) {
        guard let widget = page.widget else { return }
        GtkAfterPaint.run(widget) { [self] in write(page) }
    }

    /// Writes `<directory>/<page name>.json` now (replacing the one of an earlier visit).
    func write(_ page: GtkWidgetNode) {
        let file = ViewTree.fileName(page: page.pathName)
        var text = GtkTreeWriter.tree(page).jsonText
        text += "\n"
        let tmp = directory + "/." + file + ".tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8)) else { return }
        try? Posix.rename(tmp, directory + "/" + file)
    }

    /// The tree under `root` as §1 JSON, with `path` and `viewId` (extensions) on every node and
    /// `frame` (`[x, y, width, height]` in window coordinates) on every mapped one.
    static func tree(_ root: GtkWidgetNode) -> JSONValue {
        var capture = GtkTreeCapture(window: GtkTreeCapture.window(of: root), forSnapshot: false)
        return .object(capture.tree(root))
    }
}
