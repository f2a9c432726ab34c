import Foundation
import Hooks
import Interactions
import ViewIdentity
import EventModel

/// Passes every interaction on, and writes each page's view tree (JSON, docs/viewpath.md §1) to
/// `directory/<page>.json` when the page is entered, the controller at its root. A page entered
/// again overwrites its file, so the folder holds each page as it was last entered.
///
/// Writes on the thread that delivers interactions (the demo's own, never the concurrency pool).
final class PageTreeWriter: InteractionRelay {
    let next: any InteractionObserver
    let directory: String
    /// The first write that failed, to report after the session.
    private(set) var failure: String?
    /// Files written, in order (a page entered twice counts once).
    private(set) var written: [String] = []

    init(directory: String, next: any InteractionObserver) {
        self.directory = directory
        self.next = next
    }

    func observe(_ interaction: Interaction) {
        if interaction.kind == .pageEnter, let node = interaction.node { write(node, page: interaction.page) }
        next.observe(interaction)
    }


    private func write(_ node: any ViewNode, page: String?) {
        let name = ViewTree.fileName(page: page ?? node.pathName)
        let path = (directory as NSString).appendingPathComponent(name)
        do {
            try Data((ViewTree.json(of: node).jsonText + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            if !written.contains(path) { written.append(path) }
        } catch {
            if failure == nil { failure = "cannot write the page tree \(path)" }
        }
    }
}
