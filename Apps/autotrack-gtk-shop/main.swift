import GtkShop
import SystemCalls

exit(GtkShopApp.run())
