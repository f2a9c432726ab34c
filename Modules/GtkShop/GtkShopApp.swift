import CGtk
import SystemCalls

/// The GTK shop (`autotrack-gtk-shop`): the demo shop as a real GTK 4 application.
public enum GtkShopApp {
    /// Opens the window and runs GTK's main loop until the window is closed; returns the exit status.
    public static func run() -> Int32 {
        guard gtk_init_check() != 0 else {
            Posix.writeToStandardError("autotrack-gtk-shop: cannot open a display; set DISPLAY (or WAYLAND_DISPLAY), e.g. run it under xvfb-run\n")
            return 1
        }
        let loop = g_main_loop_new(nil, 0)!
        let shop = ShopWindow { g_main_loop_quit(loop) }
        gtk_window_present(shop.window.as(GtkWindow.self))
        g_main_loop_run(loop)
        g_main_loop_unref(loop)
        return 0
    }
}
