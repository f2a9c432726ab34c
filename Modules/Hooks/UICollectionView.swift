public import ViewIdentity

/// Supplies a collection view's items.
public protocol UICollectionViewDataSource: AnyObject {
    func numberOfSections(in collectionView: UICollectionView) -> Int
    func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int
    /// A cell for the item, from `dequeueReusableCell(withReuseIdentifier:for:)`.
    func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: CellIndexPath) -> UICollectionViewCell
}

extension UICollectionViewDataSource {
    public func numberOfSections(in collectionView: UICollectionView) -> Int { 1 }
}

/// Told when the user selects an item or scrolls.
public protocol UICollectionViewDelegate: UIScrollViewDelegate {
    func collectionView(_ collectionView: UICollectionView, didSelectItemAt indexPath: CellIndexPath)
}

extension UICollectionViewDelegate {
    public func collectionView(_ collectionView: UICollectionView, didSelectItemAt indexPath: CellIndexPath) {}
}

/// A grid of items, each a cell of role `cell` with its `s:r` index path (docs/viewpath.md §2 rule 4).
///
/// Every item has a cell (no viewport: a grid's layout is not modelled); `reloadData()` hands the
/// cells back to the reuse pool and asks the data source again. Selecting an item is the hook
/// point `collectionView:didSelectItemAtIndexPath:`, tracked like a table row's selection.
open class UICollectionView: UIScrollView {
    public weak var dataSource: (any UICollectionViewDataSource)?
    public weak var delegate: (any UICollectionViewDelegate)? {
        didSet { scrollDelegate = delegate }
    }
    private var pool = CellReusePool<UICollectionViewCell>()
    /// The cells, in item order.
    public private(set) var visibleCells: [UICollectionViewCell] = []

    public override init() {
        super.init()
    }

    open override class var hookPoints: [AnyHookPoint] { super.hookPoints + [HookPoint.didSelectItem.erased] }

    /// Tells the collection view which class to create for `identifier` when the pool is empty.
    public func register(_ cellClass: UICollectionViewCell.Type, forCellWithReuseIdentifier identifier: String) {
        pool.register(cellClass, for: identifier)
    }

    /// A cell for `indexPath`: one from the reuse pool (after `prepareForReuse`), else a new one.
    public func dequeueReusableCell(withReuseIdentifier identifier: String, for indexPath: CellIndexPath) -> UICollectionViewCell {
        let cell = pool.dequeue(identifier)
        cell.indexPath = indexPath
        return cell
    }

    /// Rebuilds the cells from the data source.
    open func reloadData() {
        for cell in visibleCells {
            cell.indexPath = nil
            pool.recycle(cell)
        }
        visibleCells = []
        guard let ds = dataSource else { return }
        for s in 0..<ds.numberOfSections(in: self) {
            for i in 0..<ds.collectionView(self, numberOfItemsInSection: s) {
                let ip = CellIndexPath(section: s, row: i)
                let cell = ds.collectionView(self, cellForItemAt: ip)
                cell.indexPath = ip
                addSubview(cell)
                visibleCells.append(cell)
            }
        }
    }

    /// The cell of the item at `indexPath`.
    public func cellForItem(at indexPath: CellIndexPath) -> UICollectionViewCell? {
        visibleCells.first { $0.indexPath == indexPath }
    }

    /// What a tap on an item does: the selection is hookable, then the delegate is told.
    /// Returns false (and does nothing) when there is no such item.
    @discardableResult
    open func selectItem(at indexPath: CellIndexPath) -> Bool {
        guard cellForItem(at: indexPath) != nil else { return false }
        aspects.invoke(.didSelectItem, on: self, arguments: indexPath) {
            delegate?.collectionView(self, didSelectItemAt: indexPath)
        }
        return true
    }

    open override func notifyDidEndDragging() {
        delegate?.scrollViewDidEndDragging(self)
    }
}

/// One item of a collection view: a node of role `cell`; subviews go in `contentView`.
open class UICollectionViewCell: UIView, ReusableCell {
    public let reuseIdentifier: String?
    /// The item the cell shows now; nil while it waits in the reuse pool.
    public internal(set) var indexPath: CellIndexPath?
    public let contentView = UIView()

    public required init(reuseIdentifier: String?) {
        self.reuseIdentifier = reuseIdentifier
        super.init()
        addSubview(contentView)
    }

    open override var role: ViewRole { .cell }
    open override var cellIndexPath: CellIndexPath? { indexPath }

    open func prepareForReuse() {}
}

extension HookPoint where Instance == UICollectionView, Arguments == CellIndexPath, Result == Void {
    /// The user selected an item (`indexPath`); the delegate is told inside.
    public static var didSelectItem: Self { Self("collectionView:didSelectItemAtIndexPath:") }
}
