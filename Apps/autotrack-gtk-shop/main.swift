import GtkShop

#if canImport(Glibc)
import Glibc
#endif

exit(GtkShopApp.run())
