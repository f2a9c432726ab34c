public import Hooks
import Interactions

/// A product's page: image (tap to zoom), name, price, favourite, share, size, quantity, add to cart.
///
/// Gift products use the page alias `gift`, so their path starts `DetailViewController(gift)`.
/// The controller holds its `product`: KVC rules read `product.id` on page events and
/// `parent.parent.product.id` from a control on the page (control → root view → controller).
public final class DetailViewController: UIViewController {
    public let product: Product
    public let imageView = UIImageView(imageName: "product")
    public let nameLabel = UILabel()
    public let priceLabel = UILabel()
    public let favButton = UIButton(title: "Favourite")
    public let shareButton = UIButton(title: "Share")
    public let sizeControl = UISegmentedControl(items: ["S", "M", "L"])
    public let quantityStepper = UIStepper(value: 1, minimumValue: 1, maximumValue: 10)
    public let addToCartButton = UIButton(title: "Add to cart")
    public private(set) var isFavourite = false
    public private(set) var zoomed = false
    /// Quantities added to the cart, in order.
    public private(set) var cart: [Int] = []

    public init(product: Product) {
        self.product = product
        super.init()
        pageAlias = product.isGift ? "gift" : nil
        title = product.name
    }

    public override func viewDidLoad() {
        nameLabel.text = product.name
        priceLabel.text = String(product.price)
        for v in [imageView, nameLabel, priceLabel, favButton, shareButton, sizeControl, quantityStepper, addToCartButton] as [UIView] {
            view.addSubview(v)
        }
        let tap = UITapGestureRecognizer()
        tap.addTarget(self, action: "onImageTapped:") { $0.onImageTapped($1) }
        imageView.addGestureRecognizer(tap)
        favButton.addTarget(self, action: "onFavBtnPressed:", for: .touchUpInside) { $0.onFavBtnPressed($1) }
        shareButton.addTarget(self, action: "onShareBtnPressed:", for: .touchUpInside) { $0.onShareBtnPressed($1) }
        sizeControl.addTarget(self, action: "onSizeChanged:", for: .valueChanged) { $0.onSizeChanged($1) }
        quantityStepper.addTarget(self, action: "onQuantityChanged:", for: .valueChanged) { $0.onQuantityChanged($1) }
        addToCartButton.addTarget(self, action: "onAddToCartPressed:", for: .touchUpInside) { $0.onAddToCartPressed($1) }
    }

    // Action methods, as an app declares them: the inventory (`autotrack-agent inventory`) finds
    // them in the source, so `check` can compare the example configuration with this code.

    public func onImageTapped(_ sender: UITapGestureRecognizer) { zoomed.toggle() }

    public func onFavBtnPressed(_ sender: UIButton) {
        isFavourite.toggle()
        sender.title = isFavourite ? "Unfavourite" : "Favourite"
    }

    public func onShareBtnPressed(_ sender: UIButton) {}

    public func onSizeChanged(_ sender: UISegmentedControl) {}

    public func onQuantityChanged(_ sender: UIStepper) {}

    public func onAddToCartPressed(_ sender: UIButton) {
        cart.append(Int(quantityStepper.value))
    }
}
