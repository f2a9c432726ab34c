import EventModel
import Hooks
import Interactions
import Testing
import ViewIdentity

/// A grid of photos: the controller is the data source and the delegate.
final class PhotoGrid: UIViewController, UICollectionViewDataSource, UICollectionViewDelegate {
    let grid = UICollectionView()
    let names = [["cat", "dog", "owl"], ["fox"]]
    var selected: [CellIndexPath] = []

    override func viewDidLoad() {
        grid.register(PhotoCell.self, forCellWithReuseIdentifier: "photo")
        grid.dataSource = self
        grid.delegate = self
        view.addSubview(grid)
        grid.reloadData()
    }

    func numberOfSections(in collectionView: UICollectionView) -> Int { names.count }
    func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int { names[section].count }
    func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: CellIndexPath) -> UICollectionViewCell {
        let cell = collectionView.dequeueReusableCell(withReuseIdentifier: "photo", for: indexPath)
        cell.title = names[indexPath.section][indexPath.row]
        cell.props = ["photo": .string(names[indexPath.section][indexPath.row])]
        return cell
    }
    func collectionView(_ collectionView: UICollectionView, didSelectItemAt indexPath: CellIndexPath) { selected.append(indexPath) }
}

final class PhotoCell: UICollectionViewCell {}

/// A page with a delete button that asks first.
final class Inbox: UIViewController {
    let delete = UIButton(title: "Delete")
    var answers: [String] = []

    override func viewDidLoad() { view.addSubview(delete) }

    func ask(_ style: UIAlertController.Style) -> UIAlertController {
        let alert = UIAlertController(title: "Delete?", message: "It cannot be undone", preferredStyle: style)
        alert.addAction(UIAlertAction(title: "Cancel", style: .cancel) { [weak self] _ in self?.answers.append("cancel") })
        alert.addAction(UIAlertAction(title: "Delete", style: .destructive) { [weak self] _ in self?.answers.append("delete") })
        present(alert)
        return alert
    }
}

final class Preferences: UIViewController {
    var saved = 0
    override init() {
        super.init()
        title = "Preferences"
    }
}

@Suite struct UIKindsTests {
    @Test func collectionViewItemSelectionReportsTheCellWithItsIndexPath() throws {
        let rig = HookRig()
        let (window, c) = rig.show { PhotoGrid() }
        #expect(c.grid.selectItem(at: CellIndexPath(section: 1, row: 0)))
        #expect(c.selected == [CellIndexPath(section: 1, row: 0)])
        let seen = try #require(rig.recorder.seen.last)
        #expect(seen.kind == .listItemClick)
        #expect(seen.event.name == "PhotoGrid#PhotoGrid#collectionView:didSelectItemAtIndexPath:")
        #expect(seen.event.path == "PhotoGrid-UIView-UICollectionView-PhotoCell&0-0-0-1:0")
        #expect(seen.event.props["indexPath"] == .string("1:0"))
        #expect(seen.event.props["title"] == .string("fox"))
        #expect(seen.props == ["photo": "fox"])
        // A button inside an item's content view carries the item's s:r in its path.
        let cell = try #require(c.grid.cellForItem(at: CellIndexPath(section: 0, row: 2)))
        let like = rig.build { UIButton(title: "Like") }
        cell.contentView.addSubview(like)
        #expect(like.viewPath.canonical == "PhotoGrid-UIView-UICollectionView-PhotoCell-UIView-UIButton&0-0-0-0:2-0-0")
        _ = window
    }

    @Test(arguments: [UIAlertController.Style.alert, .actionSheet])
    func alertActionsReportTheirTitleOnThePresentingPage(_ style: UIAlertController.Style) throws {
        let rig = HookRig()
        let (window, inbox) = rig.show { Inbox() }
        let alert = rig.build { inbox.ask(style) }
        // The alert is the page's child in the tree, and no page of its own.
        #expect(alert.parentNode === inbox.view)
        #expect(!rig.recorder.events.contains { $0.type == .pageEnter && $0.name == "UIAlertController" })
        let delete = try #require(alert.actionView(titled: "Delete"))
        delete.tap()
        #expect(inbox.answers == ["delete"])
        #expect(inbox.presentedViewController == nil)
        let e = try #require(rig.recorder.events.last)
        #expect(e.type == .click)
        #expect(e.name == "UIAlertController#UIAlertController#dismissWithAction:")
        #expect(e.props["title"] == .string("Delete"))
        #expect(e.page == "Inbox")
        #expect(e.path == "UIAlertController-UIView-_UIAlertControllerActionView&0-0-1")
        _ = window
    }

    @Test func tabBarSelectionIsAClickThenAPageSwitch() throws {
        let rig = HookRig()
        let (window, tabs) = rig.show { UITabBarController(viewControllers: [Inbox(), Preferences()]) }
        #expect(rig.recorder.summary == ["page_enter Inbox"])
        let settingsTab = try #require(tabs.button(at: 1))
        settingsTab.tap()
        #expect(tabs.selectedIndex == 1)
        #expect(Array(rig.recorder.summary.dropFirst()) == [
            "click UITabBarController#UITabBarController#tabBar:didSelectItem:", "page_leave Inbox", "page_enter Preferences",
        ])
        let click = try #require(rig.recorder.events.first { $0.type == .click })
        #expect(click.props["title"] == .string("Preferences"))
        #expect(click.page == "Inbox")
        #expect(click.path == "UITabBarController-UIView-UITabBar-UITabBarButton&0-0-0-1")
        _ = window
    }

    @Test func navigationBarButtonItemsAreTrackedOnTheShownPage() throws {
        let rig = HookRig()
        let settings = rig.build { Preferences() }
        let save = UIBarButtonItem(title: "Save", target: settings, action: "onSave:") { s, _ in s.saved += 1 }
        let (window, nav) = rig.show { () -> UINavigationController in
            settings.navigationItem.rightBarButtonItems = [save]
            return UINavigationController(rootViewController: settings)
        }
        let button = try #require(nav.navigationBar.button(for: save))
        button.tap()
        #expect(settings.saved == 1)
        let e = try #require(rig.recorder.events.last)
        #expect(e.name == "UINavigationController#Preferences#onSave:")
        #expect(e.page == "Preferences")
        #expect(e.props["title"] == .string("Save"))
        #expect(e.path == "UINavigationController-UIView-UINavigationBar-UINavigationButton&0-0-0-0")
        _ = window
    }

    @Test func aTableWrapperViewSitsBetweenTheTableAndItsCells() throws {
        final class Rows: UIViewController, UITableViewDataSource, UITableViewDelegate {
            let table = UITableView(rowHeight: 44, visibleRowCount: 3, wrapsCells: true)
            override func viewDidLoad() {
                table.dataSource = self
                table.delegate = self
                view.addSubview(table)
                table.reloadData()
            }
            func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { 5 }
            func tableView(_ tableView: UITableView, cellForRowAt indexPath: CellIndexPath) -> UITableViewCell {
                let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
                cell.title = "row \(indexPath.row)"
                return cell
            }
        }
        let rig = HookRig()
        let (window, rows) = rig.show { Rows() }
        #expect(rows.table.selectRow(at: CellIndexPath(section: 0, row: 2)))
        let e = try #require(rig.recorder.events.last)
        #expect(e.path?.hasSuffix("-UITableView-UITableViewWrapperView-UITableViewCell&0-0-0-0-0:2") == true)
        #expect(e.props["title"] == .string("row 2"))
        _ = window
    }
}
