/// A cell that lists hand out again once it scrolls away (table and collection cells).
public protocol ReusableCell: UIView {
    init(reuseIdentifier: String?)
    var reuseIdentifier: String? { get }
    /// Called before the cell is handed out again; subclasses clear row-specific state.
    func prepareForReuse()
}

/// The registered cell classes of a list and the cells waiting to be reused, by reuse identifier.
struct CellReusePool<Cell: ReusableCell> {
    private var registered: [String: Cell.Type] = [:]
    private var waiting: [String: [Cell]] = [:]
    /// How many cells were ever created: stays small however far the list scrolls.
    private(set) var createdCount = 0

    mutating func register(_ cellClass: Cell.Type, for identifier: String) {
        registered[identifier] = cellClass
    }

    /// A waiting cell (after `prepareForReuse`), else a new one of the registered class.
    mutating func dequeue(_ identifier: String) -> Cell {
        if var pool = waiting[identifier], !pool.isEmpty {
            let cell = pool.removeLast()
            waiting[identifier] = pool
            cell.prepareForReuse()
            return cell
        }
        createdCount += 1
        return (registered[identifier] ?? Cell.self).init(reuseIdentifier: identifier)
    }

    /// Takes `cell` out of its list and keeps it for reuse.
    mutating func recycle(_ cell: Cell) {
        cell.removeFromSuperview()
        waiting[cell.reuseIdentifier ?? "", default: []].append(cell)
    }
}
