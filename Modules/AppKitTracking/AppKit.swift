import ObjCRuntime
import ViewIdentity

/// The AppKit classes and selectors the adapter uses, looked up once by name (the adapter links
/// no AppKit: it runs inside an app that has it).
enum AppKit {
    static let superview: ObjCSelector = "superview"
    static let subviewsSelector: ObjCSelector = "subviews"
    static let window: ObjCSelector = "window"
    static let contentView: ObjCSelector = "contentView"
    static let windowController: ObjCSelector = "windowController"
    static let delegate: ObjCSelector = "delegate"
    static let title: ObjCSelector = "title"
    static let stringValue: ObjCSelector = "stringValue"
    static let isEditable: ObjCSelector = "isEditable"
    static let identifier: ObjCSelector = "identifier"
    static let menu: ObjCSelector = "menu"
    static let supermenu: ObjCSelector = "supermenu"
    static let submenu: ObjCSelector = "submenu"
    static let itemArray: ObjCSelector = "itemArray"
    static let cells: ObjCSelector = "cells"
    static let numberOfColumns: ObjCSelector = "numberOfColumns"
    static let selectedCell: ObjCSelector = "selectedCell"
    static let selectedRow: ObjCSelector = "selectedRow"
    static let selectedColumn: ObjCSelector = "selectedColumn"
    static let clickedRow: ObjCSelector = "clickedRow"
    static let mode: ObjCSelector = "mode"
    static let state: ObjCSelector = "state"
    static let doubleValue: ObjCSelector = "doubleValue"
    static let indexOfSelectedItem: ObjCSelector = "indexOfSelectedItem"
    static let mainMenu: ObjCSelector = "mainMenu"
    static let keyWindow: ObjCSelector = "keyWindow"
    static let mainWindow: ObjCSelector = "mainWindow"
    static let sharedApplication: ObjCSelector = "sharedApplication"
    static let targetForAction: ObjCSelector = "targetForAction:to:from:"
    static let isVisible: ObjCSelector = "isVisible"
    static let frame: ObjCSelector = "frame"
    static let bounds: ObjCSelector = "bounds"
    static let isHidden: ObjCSelector = "isHidden"
    static let buttonType: ObjCSelector = "cell"
    static let showsStateBy: ObjCSelector = "showsStateBy"
    static let imageSelector: ObjCSelector = "image"
    static let nameSelector: ObjCSelector = "name"
    static let documentView: ObjCSelector = "documentView"
    static let isFlipped: ObjCSelector = "isFlipped"
    static let windows: ObjCSelector = "windows"

    static let viewClass = ObjCClass.named("NSView")!
    static let matrixClass = ObjCClass.named("NSMatrix") ?? viewClass
    static let textFieldClass = ObjCClass.named("NSTextField") ?? viewClass
    static let secureTextFieldClass = ObjCClass.named("NSSecureTextField") ?? viewClass
    static let textViewClass = ObjCClass.named("NSTextView") ?? viewClass
    static let menuItemClass = ObjCClass.named("NSMenuItem")
    static let tableViewClass = ObjCClass.named("NSTableView")
    static let sliderClass = ObjCClass.named("NSSlider")
    static let stepperClass = ObjCClass.named("NSStepper")
    static let popUpClass = ObjCClass.named("NSPopUpButton")
    static let popUpCellClass = ObjCClass.named("NSPopUpButtonCell")
    static let buttonClass = ObjCClass.named("NSButton")
    static let scrollViewClass = ObjCClass.named("NSScrollView")
    static let scrollerClass = ObjCClass.named("NSScroller")
    static let clipViewClass = ObjCClass.named("NSClipView")
    static let applicationClass = ObjCClass.named("NSApplication")
    static let windowClass = ObjCClass.named("NSWindow")
    /// Windows that are never pages: the app icon, menus, tool tips.
    static let machineryWindowClasses: [ObjCClass] = ["NSIconWindow", "NSMenuPanel", "GSTTPanel"].compactMap(ObjCClass.named)
    static let panelClass = ObjCClass.named("NSPanel")

    static var application: ObjCObject? {
        guard let cls = applicationClass else { return nil }
        return try? ObjCObject(cls.pointer).send(sharedApplication)
    }

    static func string(_ object: ObjCObject, _ selector: ObjCSelector) -> String? {
        guard let s = (try? object.send(selector)) ?? nil else { return nil }
        return s.string
    }

    static func array(_ object: ObjCObject, _ selector: ObjCSelector) -> [ObjCObject] {
        guard let a = (try? object.send(selector)) ?? nil else { return [] }
        return a.arrayItems ?? []
    }

    static func subviews(of view: ObjCObject) -> [ObjCObject] { array(view, subviewsSelector) }
    static func items(of menu: ObjCObject) -> [ObjCObject] { array(menu, itemArray) }

    /// A matrix's cells as cell nodes at `[row, column]`.
    static func cells(of matrix: ObjCObject) -> [any ViewNode] {
        let all = array(matrix, cells)
        let columns = max((try? matrix.integer(numberOfColumns)) ?? 1, 1)
        return all.enumerated().map { i, cell in
            AppKitNode(.matrixCell(matrix: matrix, cell: cell, row: i / columns, column: i % columns))
        }
    }

    static func isMainMenu(_ menu: ObjCObject) -> Bool {
        guard let app = application, let main = (try? app.send(mainMenu)) ?? nil else { return false }
        return main == menu
    }

    /// What names a window's page: its `windowController`, its `delegate` when that is not a view,
    /// else the window.
    static func pageOwner(of window: ObjCObject) -> ObjCObject {
        if window.responds(to: windowController), let c = (try? window.send(windowController)) ?? nil { return c }
        if let d = (try? window.send(delegate)) ?? nil, !d.isKind(of: viewClass) { return d }
        return window
    }

    /// A window that can be a page: not the icon window, a menu or a tool tip, and with content.
    static func isPageWindow(_ window: ObjCObject) -> Bool {
        guard let windowClass, window.isKind(of: windowClass) else { return false }
        if machineryWindowClasses.contains(where: { window.isKind(of: $0) }) { return false }
        guard let content = (try? window.send(contentView)) ?? nil else { return false }
        return !subviews(of: content).isEmpty
    }

    /// The window's page name for codes and `page` (docs/viewpath.md §6).
    static func pageName(of window: ObjCObject?) -> String? {
        guard let window else { return nil }
        return pageOwner(of: window).className
    }
}
