import Interactions
public import ViewIdentity

/// Supplies a table's rows.
public protocol UITableViewDataSource: AnyObject {
    func numberOfSections(in tableView: UITableView) -> Int
    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int
    /// A cell for the row, from `dequeueReusableCell(withIdentifier:for:)`.
    func tableView(_ tableView: UITableView, cellForRowAt indexPath: CellIndexPath) -> UITableViewCell
}

extension UITableViewDataSource {
    public func numberOfSections(in tableView: UITableView) -> Int { 1 }
}

/// Told when the user selects a row or scrolls.
public protocol UITableViewDelegate: UIScrollViewDelegate {
    func tableView(_ tableView: UITableView, didSelectRowAt indexPath: CellIndexPath)
}

extension UITableViewDelegate {
    public func tableView(_ tableView: UITableView, didSelectRowAt indexPath: CellIndexPath) {}
}

/// A list of rows shown through a few reused cells, like UIKit's table view.
///
/// Only rows inside the viewport (`visibleRowCount` rows from `contentOffset`) have cells; scrolling
/// hands cells that leave the viewport back to a reuse pool, and the data source configures them
/// for their new rows. That is why interactions must read a cell's data when they happen.
open class UITableView: UIScrollView {
    public weak var dataSource: (any UITableViewDataSource)?
    public weak var delegate: (any UITableViewDelegate)? {
        didSet { scrollDelegate = delegate }
    }
    /// Height of every row, in points.
    public var rowHeight: Double
    /// How many rows fit in the viewport.
    public var visibleRowCount: Int

    private var pool = CellReusePool<UITableViewCell>()
    /// Visible cells by row, in row order.
    public private(set) var visibleCells: [UITableViewCell] = []
    /// How many cells were ever created: stays small however far the table scrolls.
    public var createdCellCount: Int { pool.createdCount }
    /// The private container real table views had between the table and its cells (iOS 7–10's
    /// `UITableViewWrapperView`); nil when cells are the table's own subviews (the default).
    public let wrapperView: UITableViewWrapperView?

    /// A table of `visibleRowCount` rows on screen; `wrapsCells` puts the cells in a
    /// `UITableViewWrapperView`, as iOS 7–10 did, so paths read `UITableView-UITableViewWrapperView-Cell`.
    public init(rowHeight: Double = 44, visibleRowCount: Int = 5, wrapsCells: Bool = false) {
        self.rowHeight = rowHeight
        self.visibleRowCount = visibleRowCount
        wrapperView = wrapsCells ? UITableViewWrapperView() : nil
        super.init()
        // The viewport: `visibleRowCount` rows, as wide as a phone's screen.
        frame = ViewRect(x: 0, y: 0, width: 375, height: Double(visibleRowCount) * rowHeight)
        if let wrapperView { addSubview(wrapperView) }
    }

    open override class var hookPoints: [AnyHookPoint] { super.hookPoints + [HookPoint.didSelectRow.erased] }

    /// Tells the table which class to create for `identifier` when the pool is empty.
    public func register(_ cellClass: UITableViewCell.Type, forCellReuseIdentifier identifier: String) {
        pool.register(cellClass, for: identifier)
    }

    /// A cell for `indexPath`: one from the reuse pool (after `prepareForReuse`), else a new one.
    public func dequeueReusableCell(withIdentifier identifier: String, for indexPath: CellIndexPath) -> UITableViewCell {
        let cell = pool.dequeue(identifier)
        cell.indexPath = indexPath
        return cell
    }

    /// Every row in order, sections first.
    public var allIndexPaths: [CellIndexPath] {
        guard let ds = dataSource else { return [] }
        var all: [CellIndexPath] = []
        for s in 0..<ds.numberOfSections(in: self) {
            for r in 0..<ds.tableView(self, numberOfRowsInSection: s) { all.append(CellIndexPath(section: s, row: r)) }
        }
        return all
    }

    /// Rebuilds the visible cells from the data source.
    open func reloadData() {
        for cell in visibleCells { recycle(cell) }
        visibleCells = []
        layoutContent()
    }

    /// The visible cell at `indexPath`, nil when that row is scrolled out of view.
    public func cellForRow(at indexPath: CellIndexPath) -> UITableViewCell? {
        visibleCells.first { $0.indexPath == indexPath }
    }

    /// Scrolls (as code does) so that the row at `indexPath` is the first visible.
    public func scrollToRow(at indexPath: CellIndexPath) {
        guard let flat = allIndexPaths.firstIndex(of: indexPath) else { return }
        setContentOffset(Double(flat) * rowHeight)
    }

    /// What the user's drag that brings `indexPath` to the top does.
    public func dragToRow(at indexPath: CellIndexPath) {
        guard let flat = allIndexPaths.firstIndex(of: indexPath) else { return }
        drag(to: Double(flat) * rowHeight)
    }

    /// What a tap on a visible row does: the selection is hookable, then the delegate is told.
    /// Returns false (and does nothing) when the row is not visible, since it cannot be tapped.
    @discardableResult
    open func selectRow(at indexPath: CellIndexPath) -> Bool {
        guard cellForRow(at: indexPath) != nil else { return false }
        aspects.invoke(.didSelectRow, on: self, arguments: indexPath) {
            delegate?.tableView(self, didSelectRowAt: indexPath)
        }
        return true
    }

    open override func notifyDidEndDragging() {
        delegate?.scrollViewDidEndDragging(self)
    }

    open override func layoutContent() {
        guard let ds = dataSource else { return }
        let rows = allIndexPaths
        let first = min(max(0, Int(contentOffset / rowHeight)), max(0, rows.count - 1))
        let wanted = rows.isEmpty ? [] : Array(rows[first..<min(rows.count, first + visibleRowCount)])
        var kept: [UITableViewCell] = []
        for cell in visibleCells {
            if let ip = cell.indexPath, wanted.contains(ip) { kept.append(cell) } else { recycle(cell) }
        }
        var result: [UITableViewCell] = []
        for (i, ip) in wanted.enumerated() {
            let cell: UITableViewCell
            if let k = kept.first(where: { $0.indexPath == ip }) {
                cell = k
            } else {
                cell = ds.tableView(self, cellForRowAt: ip)
                cell.indexPath = ip
                (wrapperView ?? self).addSubview(cell)
            }
            // Rows lie one under the other in the content, which the offset moves.
            cell.frame = ViewRect(x: 0, y: Double(first + i) * rowHeight, width: frame?.width ?? 375, height: rowHeight)
            result.append(cell)
        }
        visibleCells = result
    }

    private func recycle(_ cell: UITableViewCell) {
        cell.indexPath = nil
        pool.recycle(cell)
    }
}

/// One row of a table: a node of role `cell` carrying its index path; subviews go in `contentView`.
open class UITableViewCell: UIView, ReusableCell {
    public let reuseIdentifier: String?
    /// The row the cell shows now; nil while it waits in the reuse pool.
    public internal(set) var indexPath: CellIndexPath?
    public let contentView = UITableViewCellContentView()

    public required init(reuseIdentifier: String?) {
        self.reuseIdentifier = reuseIdentifier
        super.init()
        addSubview(contentView)
    }

    open override var role: ViewRole { .cell }
    open override var cellIndexPath: CellIndexPath? { indexPath }

    /// Called before the cell is handed out again; subclasses clear row-specific state.
    open func prepareForReuse() {}
}

/// The view inside a cell that holds its content, as in UIKit.
open class UITableViewCellContentView: UIView {}

/// The private container between a table and its cells in iOS 7–10 (`UITableView(wrapsCells: true)`).
open class UITableViewWrapperView: UIView {}

extension HookPoint where Instance == UITableView, Arguments == CellIndexPath, Result == Void {
    /// The user selected a row (`indexPath`); the delegate is told inside.
    public static var didSelectRow: Self { Self("tableView:didSelectRowAtIndexPath:") }
}
