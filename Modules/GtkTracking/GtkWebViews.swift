import CGtk
import EventModel
import Interactions
import ViewIdentity

/// Web views in a GTK application (docs/gtk.md "Web views"): each `WebKitWebView` (WebKitGTK 6) is
/// given, when first mapped, a user script in its content manager that reports each document
/// loaded in its top frame and each click the user made in it (`event.isTrusted`) through the
/// script message handler `autotrack`, into the same observer as the widgets' events.
///
/// A clicked element is a node under the web view's own node, named by its tag (`BUTTON`), its
/// index counted among its earlier siblings of the same tag (viewpath.md §2 rule 4, counted by the
/// script), so its path is the DOM path under the web view's path. WebKit's functions are looked up
/// in the process (`cgtk_webkit_*`): a program without WebKitGTK 6 has no web views and pays one
/// failed lookup. Use on the GTK thread.
final class GtkWebViews {
    static let handlerName = "autotrack"

    private let clock: any InteractionClock
    private let report: (Interaction) -> Void
    /// The page an interaction inside `node` counts on (the hook system's rule).
    private let pageOf: (ViewPlacement, GtkWidgetNode) -> String

    init(clock: any InteractionClock, pageOf: @escaping (ViewPlacement, GtkWidgetNode) -> String, report: @escaping (Interaction) -> Void) {
        self.clock = clock
        self.pageOf = pageOf
        self.report = report
    }

    /// WebKitWebView's GType, looked up once; 0 without WebKitGTK 6.
    static let webViewType: GType = cgtk_webkit_web_view_type()

    static func isWebView(_ widget: GObjectPointer) -> Bool { webViewType != 0 && cgtk_is_a(widget, webViewType) != 0 }

    private static let marker = g_quark_from_static_string("autotrack-web-view")

    /// A widget was mapped: a web view not seen before gets the script and the handler.
    func mapped(_ widget: GObjectPointer) {
        guard GtkWebViews.isWebView(widget) else { return }
        let object = widget.assumingMemoryBound(to: GObject.self)
        guard g_object_get_qdata(object, GtkWebViews.marker) == nil else { return }
        g_object_set_qdata(object, GtkWebViews.marker, UnsafeMutableRawPointer(bitPattern: 1))
        let context = WebViewContext(webViews: self, view: GtkWidgetNode.node(for: widget))
        let received: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
            _, value, data in
            guard let data, let json = cgtk_jsc_value_to_json(value) else { return }
            defer { g_free(json) }
            let context = Unmanaged<WebViewContext>.fromOpaque(data).takeUnretainedValue()
            context.webViews?.received(String(cString: json), in: context.view)
        }
        _ = cgtk_webkit_install(
            widget, GtkWebViews.script, GtkWebViews.handlerName, unsafeBitCast(received, to: GCallback.self),
            Unmanaged.passRetained(context).toOpaque(),
            { data, _ in
                guard let data else { return }
                Unmanaged<WebViewContext>.fromOpaque(data).release()
            })
    }

    /// One message of the script: `{"kind":"load",…}` or `{"kind":"click",…}`; anything else is passed over.
    func received(_ json: String, in view: GtkWidgetNode) {
        guard view.widget != nil, let message = try? JSONValue.parse(json), let kind = message["kind"]?.stringValue else { return }
        let url = message["url"]?.stringValue
        switch kind {
        case "load":
            let location = ViewLocation(of: view)
            var interaction = Interaction(
                kind: .pageEnter, node: view,
                eventCode: EventCode(controller: location.placement.codeController, target: view.id ?? view.typeName, action: "load"),
                title: message["title"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }, page: pageOf(location.placement, view),
                timestamp: clock.wallMilliseconds())
            interaction.url = url
            interaction.knownPath = location.path
            report(interaction)
        case "click":
            guard let names = message["names"]?.arrayValue?.compactMap(\.stringValue),
                let indexes = message["indexes"]?.arrayValue?.compactMap(\.intValue), !names.isEmpty, names.count == indexes.count
            else { return }
            // From <html> down; the script says whether the clicked element lies in an ignored one.
            let ignored = message["ignored"]?.boolValue == true
            var node: WebElementNode?
            for (offset, (name, index)) in zip(names, indexes).enumerated() {
                node = WebElementNode(tag: name, index: Int(index), parent: node ?? view, ignored: ignored && offset == names.count - 1)
            }
            guard let element = node else { return }
            let title = message["title"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            element.title = title
            let location = ViewLocation(of: element)
            let viewPlacement = ViewPlacement(of: view)
            var interaction = Interaction(
                kind: .click, node: element,
                eventCode: EventCode(
                    controller: location.placement.codeController, target: message["id"]?.stringValue ?? element.typeName, action: "click"),
                title: title, page: pageOf(viewPlacement, view), timestamp: clock.wallMilliseconds())
            interaction.url = url
            interaction.knownPath = location.path
            interaction.knownNodeTitle = .some(title)
            report(interaction)
        default:
            return
        }
    }

    /// The user script: reports the document once loaded, and every click the user made (trusted
    /// events only: a script's `click()` is none) with the element's DOM path: its tags (letters,
    /// digits and `_`, upper case) and same-tag sibling counts from `<html>` down, its `id`, a
    /// title (a button's or link's text, an input button's value; never what the user typed), and
    /// whether it lies inside an element with id or class `autotrack-ignore`.
    static let script = """
        (function () {
          if (window.__autotrack) { return; }
          window.__autotrack = true;
          function post(m) { try { window.webkit.messageHandlers.autotrack.postMessage(m); } catch (e) {} }
          function tag(e) { return e.tagName.toUpperCase().replace(/[^A-Z0-9_]/g, '_'); }
          post({kind: 'load', url: location.href, title: document.title});
          document.addEventListener('click', function (event) {
            if (!event.isTrusted) { return; }
            var el = event.target;
            if (el && el.nodeType !== 1) { el = el.parentElement; }
            if (!el) { return; }
            var names = [], indexes = [], ignored = false;
            for (var e = el; e; e = e.parentElement) {
              var n = tag(e), i = 0;
              for (var s = e.previousElementSibling; s; s = s.previousElementSibling) { if (tag(s) === n) { i++; } }
              names.unshift(n); indexes.unshift(i);
              if (e.id === 'autotrack-ignore' || (e.classList && e.classList.contains('autotrack-ignore'))) { ignored = true; }
            }
            var title = '', t = tag(el);
            if (t === 'INPUT') {
              var type = (el.type || '').toLowerCase();
              if (type === 'button' || type === 'submit' || type === 'reset') { title = el.value || ''; }
            } else if (t !== 'TEXTAREA' && !el.isContentEditable) {
              title = (el.innerText || '').trim().slice(0, 256);
            }
            post({kind: 'click', names: names, indexes: indexes, id: el.id || null, title: title, url: location.href, ignored: ignored});
          }, true);
        })();
        """
}

/// What a script message handler needs: the web views (which live for the rest of the process
/// once the hooks start) and the web view's node.
private final class WebViewContext {
    weak var webViews: GtkWebViews?
    let view: GtkWidgetNode

    init(webViews: GtkWebViews, view: GtkWidgetNode) {
        self.webViews = webViews
        self.view = view
    }
}

/// An element of a web page, as the user script described it at a click: a node whose parent is
/// the element holding it, and `<html>`'s the web view's node.
final class WebElementNode: ViewNode {
    let typeName: String
    /// How many earlier siblings have the same tag (the script counted them).
    let index: Int
    let parent: any ViewNode
    /// Inside an element with id or class `autotrack-ignore`.
    let ignored: Bool
    var title: String?

    init(tag: String, index: Int, parent: any ViewNode, ignored: Bool) {
        typeName = tag
        self.index = index
        self.parent = parent
        self.ignored = ignored
    }

    var role: ViewRole { .view }
    var parentNode: (any ViewNode)? { parent }
    var childNodes: [any ViewNode] { [] }
    var pathName: String { typeName }
    var ignoresTracking: Bool { ignored }
    var isInIgnoredView: Bool { ignored || parent.isInIgnoredView }

    func sameNameSiblingsBefore(name: String, parent: any ViewNode) -> Int { index }
}
