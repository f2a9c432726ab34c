public import Hooks
public import ViewIdentity
import Interactions

/// The home page: an "in stock only" switch above a table of products.
public final class HomeViewController: UIViewController, UITableViewDataSource, UITableViewDelegate {
    public let catalogue: [Product]
    public let inStockSwitch = UISwitch(isOn: false)
    /// Four rows fit on screen, so scrolling reuses cells.
    public let tableView = UITableView(rowHeight: 80, visibleRowCount: 4)
    public private(set) var favourites: Set<String> = []
    /// Product ids shared, in order.
    public private(set) var shared: [String] = []
    /// What selecting a row does (the app pushes the detail page).
    var openProduct: ((Product) -> Void)?

    public init(catalogue: [Product] = Product.catalogue) {
        self.catalogue = catalogue
        super.init()
        title = "Home"
    }

    /// The products listed now (all, or only those in stock).
    public var listed: [Product] { inStockSwitch.isOn ? catalogue.filter(\.inStock) : catalogue }

    public override func viewDidLoad() {
        view.addSubview(inStockSwitch)
        view.addSubview(tableView)
        inStockSwitch.addTarget(self, action: "onInStockSwitchChanged:", for: .valueChanged) { home, sender in
            home.onInStockSwitchChanged(sender)
        }
        tableView.register(ProductCell.self, forCellReuseIdentifier: "product")
        tableView.dataSource = self
        tableView.delegate = self
        tableView.reloadData()
    }

    public func onFavBtnPressed(_ sender: UIButton) {
        guard let product = product(of: sender) else { return }
        if favourites.remove(product.id) == nil { favourites.insert(product.id) }
        sender.title = favourites.contains(product.id) ? "Unfav" : "Fav"
    }

    public func onShareBtnPressed(_ sender: UIButton) {
        guard let product = product(of: sender) else { return }
        shared.append(product.id)
    }

    public func onInStockSwitchChanged(_ sender: UISwitch) {
        tableView.setContentOffset(0)
        tableView.reloadData()
    }

    private func product(of sender: UIView) -> Product? {
        var v: UIView? = sender
        while let current = v {
            if let cell = current as? ProductCell { return cell.product }
            v = current.superview
        }
        return nil
    }

    // MARK: UITableViewDataSource, UITableViewDelegate

    public func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { listed.count }

    public func tableView(_ tableView: UITableView, cellForRowAt indexPath: CellIndexPath) -> UITableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "product", for: indexPath) as! ProductCell
        let product = listed[indexPath.row]
        cell.configure(with: product, isFavourite: favourites.contains(product.id))
        // A reused cell already has its actions; only a new one is wired.
        if cell.favButton.actions(forTarget: self, forControlEvent: .touchUpInside).isEmpty {
            cell.favButton.addTarget(self, action: "onFavBtnPressed:", for: .touchUpInside) { home, sender in
                home.onFavBtnPressed(sender)
            }
            cell.shareButton.addTarget(self, action: "onShareBtnPressed:", for: .touchUpInside) { home, sender in
                home.onShareBtnPressed(sender)
            }
        }
        return cell
    }

    public func tableView(_ tableView: UITableView, didSelectRowAt indexPath: CellIndexPath) {
        openProduct?(listed[indexPath.row])
    }
}
