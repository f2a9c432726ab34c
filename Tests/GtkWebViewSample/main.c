// The web view test's own WebKitGTK app (docs/gtk.md "Web views"): a window titled "Web Sample"
// holding a label and a WebKitWebView that loads the URI given as the only argument. It has no
// tracking code: the tests run it under `autotrack-agent run`.
#include <webkit/webkit.h>

static void activate(GtkApplication *app, gpointer uri) {
    GtkWidget *window = gtk_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), "Web Sample");
    gtk_window_set_default_size(GTK_WINDOW(window), 800, 600);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(box), gtk_label_new("A web page:"));
    GtkWidget *web = webkit_web_view_new();
    gtk_widget_set_vexpand(web, TRUE);
    gtk_box_append(GTK_BOX(box), web);
    gtk_window_set_child(GTK_WINDOW(window), box);
    webkit_web_view_load_uri(WEBKIT_WEB_VIEW(web), (const char *)uri);
    gtk_window_present(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
    if (argc != 2) {
        g_printerr("usage: gtk-webview-sample URI\nexample: gtk-webview-sample file:///tmp/page.html\n");
        return 2;
    }
    GtkApplication *app = gtk_application_new("org.autotrack.WebViewSample", G_APPLICATION_NON_UNIQUE);
    g_signal_connect(app, "activate", G_CALLBACK(activate), argv[1]);
    char *args[] = {argv[0], NULL};
    int status = g_application_run(G_APPLICATION(app), 1, args);
    g_object_unref(app);
    return status;
}
