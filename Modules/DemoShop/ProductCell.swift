public import Hooks

/// A row of the home list: favourite button, name label, share button (in that order in its content view).
public final class ProductCell: UITableViewCell {
    public let favButton = UIButton(title: "Fav")
    public let nameLabel = UILabel()
    public let shareButton = UIButton(title: "Share")
    /// The product shown now; changes when the cell is reused.
    public private(set) var product: Product?

    public required init(reuseIdentifier: String?) {
        super.init(reuseIdentifier: reuseIdentifier)
        contentView.addSubview(favButton)
        contentView.addSubview(nameLabel)
        contentView.addSubview(shareButton)
    }

    /// Shows `product`. The cell keeps the model object itself: KVC rules read it live
    /// (`product.id` on the cell, `superview.superview.product.id` from one of its buttons).
    public func configure(with product: Product, isFavourite: Bool) {
        self.product = product
        title = product.name
        nameLabel.text = product.name
        favButton.title = isFavourite ? "Unfav" : "Fav"
    }

    public override func prepareForReuse() {
        product = nil
        title = nil
    }
}
