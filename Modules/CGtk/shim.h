// GTK 4 for Swift: the library's headers, plus the GLib and GTK macros Swift cannot import
// (type checks, type names, GValue kinds), as static inline functions.
#ifndef AUTOTRACK_CGTK_SHIM_H
#define AUTOTRACK_CGTK_SHIM_H

#include <dlfcn.h>
#include <gtk/gtk.h>

/// The GType name of an instance, as G_OBJECT_TYPE_NAME gives it.
static inline const char *cgtk_type_name(gpointer instance) { return G_OBJECT_TYPE_NAME(instance); }

/// The GType of an instance, as G_OBJECT_TYPE gives it.
static inline GType cgtk_type_of(gpointer instance) { return G_OBJECT_TYPE(instance); }

/// True when `instance` is non-NULL and of type `type` (or a subtype, or implements it).
static inline gboolean cgtk_is_a(gpointer instance, GType type) {
    return instance != NULL && G_TYPE_CHECK_INSTANCE_TYPE(instance, type);
}

/// The type of a GValue (G_VALUE_TYPE).
static inline GType cgtk_value_type(const GValue *value) { return G_VALUE_TYPE(value); }

/// What kind of data a GValue holds, by its fundamental type.
typedef enum {
    CGTK_VALUE_OTHER = 0,
    CGTK_VALUE_BOOLEAN,
    CGTK_VALUE_SIGNED,
    CGTK_VALUE_UNSIGNED,
    CGTK_VALUE_DOUBLE,
    CGTK_VALUE_STRING,
    CGTK_VALUE_OBJECT,
    CGTK_VALUE_ENUM,
    CGTK_VALUE_FLAGS,
    /// Not a kind of data: "any kind", as `cgtk_get_property` takes it.
    CGTK_VALUE_ANY,
} CGtkValueKind;

/// The kind of data values of `type` hold. A fundamental type (`gboolean`, `gdouble`, `gchararray`:
/// most properties read on a click) is its own fundamental, found without a call into GObject.
static inline CGtkValueKind cgtk_type_kind(GType type) {
    switch (G_TYPE_IS_FUNDAMENTAL(type) ? type : G_TYPE_FUNDAMENTAL(type)) {
    case G_TYPE_BOOLEAN: return CGTK_VALUE_BOOLEAN;
    case G_TYPE_CHAR: case G_TYPE_INT: case G_TYPE_LONG: case G_TYPE_INT64: return CGTK_VALUE_SIGNED;
    case G_TYPE_UCHAR: case G_TYPE_UINT: case G_TYPE_ULONG: case G_TYPE_UINT64: return CGTK_VALUE_UNSIGNED;
    case G_TYPE_FLOAT: case G_TYPE_DOUBLE: return CGTK_VALUE_DOUBLE;
    case G_TYPE_STRING: return CGTK_VALUE_STRING;
    case G_TYPE_OBJECT: case G_TYPE_INTERFACE: return CGTK_VALUE_OBJECT;
    case G_TYPE_ENUM: return CGTK_VALUE_ENUM;
    case G_TYPE_FLAGS: return CGTK_VALUE_FLAGS;
    default: return CGTK_VALUE_OTHER;
    }
}

static inline CGtkValueKind cgtk_value_kind(const GValue *value) { return cgtk_type_kind(G_VALUE_TYPE(value)); }

static inline gint64 cgtk_value_signed(const GValue *v) {
    switch (G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v))) {
    case G_TYPE_CHAR: return g_value_get_schar(v);
    case G_TYPE_INT: return g_value_get_int(v);
    case G_TYPE_LONG: return g_value_get_long(v);
    default: return g_value_get_int64(v);
    }
}

static inline guint64 cgtk_value_unsigned(const GValue *v) {
    switch (G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v))) {
    case G_TYPE_UCHAR: return g_value_get_uchar(v);
    case G_TYPE_UINT: return g_value_get_uint(v);
    case G_TYPE_ULONG: return g_value_get_ulong(v);
    default: return g_value_get_uint64(v);
    }
}

static inline double cgtk_value_double(const GValue *v) {
    return G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v)) == G_TYPE_FLOAT ? g_value_get_float(v) : g_value_get_double(v);
}

/// Reads the readable property `name` of `object` into `out` (initialised here; unset it after).
/// FALSE when the object has no readable property of that name, or when its values are not of
/// `kind` (checked on the property's declared type, before reading; CGTK_VALUE_ANY takes any).
/// Inlined where it is called, as it was before it took `kind` (it runs on every hooked click).
static inline __attribute__((always_inline)) gboolean cgtk_get_property(gpointer object, const char *name, CGtkValueKind kind,
                                                                        GValue *out) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    if (spec == NULL || !(spec->flags & G_PARAM_READABLE)) return FALSE;
    if (kind != CGTK_VALUE_ANY && cgtk_type_kind(spec->value_type) != kind) return FALSE;
    g_value_init(out, spec->value_type);
    g_object_get_property(G_OBJECT(object), name, out);
    return TRUE;
}

/// The name of the property a `notify` emission is about.
static inline const char *cgtk_param_name(gpointer spec) { return ((GParamSpec *)spec)->name; }

/// The instance pointer a signal parameter holds (objects, boxed, pointers and GdkEvent alike).
static inline gpointer cgtk_value_pointer(const GValue *v) { return g_value_peek_pointer(v); }

/// GTK's type checks, one function each (the GTK_IS_* macros).
#define CGTK_IS(fn, type_fn) static inline gboolean cgtk_is_##fn(gpointer o) { return cgtk_is_a(o, type_fn()); }
CGTK_IS(object, g_object_get_type)
CGTK_IS(widget, gtk_widget_get_type)
CGTK_IS(button, gtk_button_get_type)
CGTK_IS(toggle_button, gtk_toggle_button_get_type)
CGTK_IS(check_button, gtk_check_button_get_type)
CGTK_IS(switch, gtk_switch_get_type)
CGTK_IS(range, gtk_range_get_type)
CGTK_IS(spin_button, gtk_spin_button_get_type)
CGTK_IS(drop_down, gtk_drop_down_get_type)
CGTK_IS(list_box, gtk_list_box_get_type)
CGTK_IS(list_box_row, gtk_list_box_row_get_type)
CGTK_IS(list_view, gtk_list_view_get_type)
CGTK_IS(grid_view, gtk_grid_view_get_type)
CGTK_IS(column_view, gtk_column_view_get_type)
CGTK_IS(list_item, gtk_list_item_get_type)
CGTK_IS(stack, gtk_stack_get_type)
CGTK_IS(scrolled_window, gtk_scrolled_window_get_type)
CGTK_IS(notebook, gtk_notebook_get_type)
CGTK_IS(window, gtk_window_get_type)
CGTK_IS(native, gtk_native_get_type)
CGTK_IS(root, gtk_root_get_type)
CGTK_IS(actionable, gtk_actionable_get_type)
CGTK_IS(buildable, gtk_buildable_get_type)
CGTK_IS(gesture_click, gtk_gesture_click_get_type)
CGTK_IS(string_object, gtk_string_object_get_type)
CGTK_IS(editable, gtk_editable_get_type)
CGTK_IS(text, gtk_text_get_type)
CGTK_IS(text_view, gtk_text_view_get_type)
CGTK_IS(entry, gtk_entry_get_type)
CGTK_IS(password_entry, gtk_password_entry_get_type)
CGTK_IS(search_entry, gtk_search_entry_get_type)
CGTK_IS(entry_buffer, gtk_entry_buffer_get_type)
CGTK_IS(text_buffer, gtk_text_buffer_get_type)
#undef CGTK_IS


/// The names of `object`'s readable, not deprecated properties whose values have a JSON form
/// (booleans, numbers, enums, flags, strings, objects), in the order GObject lists them; `*n` is
/// their number. Free the array with g_free (the names belong to the class).
static inline const char **cgtk_readable_property_names(gpointer object, guint *n) {
    guint count = 0;
    GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(object), &count);
    const char **names = g_new(const char *, count + 1);
    guint kept = 0;
    for (guint i = 0; i < count; i++) {
        GParamSpec *spec = specs[i];
        if (!(spec->flags & G_PARAM_READABLE) || (spec->flags & G_PARAM_DEPRECATED)) continue;
        GType fundamental = G_TYPE_FUNDAMENTAL(spec->value_type);
        if (fundamental == G_TYPE_BOXED || fundamental == G_TYPE_POINTER || fundamental == G_TYPE_PARAM
            || fundamental == G_TYPE_VARIANT || spec->value_type == G_TYPE_GTYPE) continue;
        names[kept++] = spec->name;
    }
    names[kept] = NULL;
    g_free(specs);
    *n = kept;
    return names;
}

/// Renders `widget` as it was last drawn (through a widget paintable: its current render node)
/// into a PNG of `width`x`height` pixels, one pixel per unit of the widget's coordinates less its
/// own bounds' origin, with the `n` rectangles of `blank` (in the PNG's pixels) painted over in
/// `color`. NULL when the widget has no renderer (not realized) or rendering fails. Call on the
/// GTK thread; free the bytes with g_bytes_unref.
static inline GBytes *cgtk_render_png(GtkWidget *widget, int width, int height, const graphene_rect_t *blank, guint n,
                                      const GdkRGBA *color) {
    GtkNative *native = gtk_widget_get_native(widget);
    if (native == NULL) return NULL;
    GskRenderer *renderer = gtk_native_get_renderer(native);
    if (renderer == NULL) return NULL;
    GdkPaintable *paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, GDK_SNAPSHOT(snapshot), width, height);
    for (guint i = 0; i < n; i++) gtk_snapshot_append_color(snapshot, color, &blank[i]);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    g_object_unref(paintable);
    if (node == NULL) return NULL;
    graphene_rect_t viewport = GRAPHENE_RECT_INIT(0, 0, width, height);
    GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &viewport);
    gsk_render_node_unref(node);
    if (texture == NULL) return NULL;
    GBytes *png = gdk_texture_save_to_png_bytes(texture);
    g_object_unref(texture);
    return png;
}

// WebKitGTK 6 (docs/gtk.md "Web views"), looked up in the process at run time: the tracking links no
// WebKit, and a program that does not embed it has none of these functions.

/// WebKitWebView's GType; 0 when the program has no WebKitGTK 6.
static inline GType cgtk_webkit_web_view_type(void) {
    GType (*get_type)(void) = (GType (*)(void))dlsym(RTLD_DEFAULT, "webkit_web_view_get_type");
    return get_type != NULL ? get_type() : 0;
}

/// Adds `source` to `view`'s user content manager as a script run at the end of every document
/// loaded in its top frame from now on, registers the script message handler `name`, and connects
/// `received(manager, JSCValue *value, data)` to its `script-message-received::name`, with
/// `destroy` called on `data` when the manager goes. FALSE (nothing done) when a function is missing.
static inline gboolean cgtk_webkit_install(gpointer view, const char *source, const char *name, GCallback received, gpointer data,
                                           GClosureNotify destroy) {
    gpointer (*get_manager)(gpointer) = (gpointer (*)(gpointer))dlsym(RTLD_DEFAULT, "webkit_web_view_get_user_content_manager");
    gpointer (*script_new)(const char *, int, int, const char *const *, const char *const *) =
        (gpointer (*)(const char *, int, int, const char *const *, const char *const *))dlsym(RTLD_DEFAULT, "webkit_user_script_new");
    void (*add_script)(gpointer, gpointer) = (void (*)(gpointer, gpointer))dlsym(RTLD_DEFAULT, "webkit_user_content_manager_add_script");
    void (*script_unref)(gpointer) = (void (*)(gpointer))dlsym(RTLD_DEFAULT, "webkit_user_script_unref");
    gboolean (*register_handler)(gpointer, const char *, const char *) =
        (gboolean (*)(gpointer, const char *, const char *))dlsym(RTLD_DEFAULT, "webkit_user_content_manager_register_script_message_handler");
    if (get_manager == NULL || script_new == NULL || add_script == NULL || script_unref == NULL || register_handler == NULL) return FALSE;
    gpointer manager = get_manager(view);
    if (manager == NULL) return FALSE;
    // WEBKIT_USER_CONTENT_INJECT_TOP_FRAME = 1, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END = 1.
    gpointer script = script_new(source, 1, 1, NULL, NULL);
    if (script == NULL) return FALSE;
    add_script(manager, script);
    script_unref(script);
    if (!register_handler(manager, name, NULL)) return FALSE;
    char *signal = g_strconcat("script-message-received::", name, NULL);
    g_signal_connect_data(manager, signal, received, data, destroy, 0);
    g_free(signal);
    return TRUE;
}

/// A script message's value (a JSCValue) as JSON text; NULL when it has none. Free with g_free.
static inline char *cgtk_jsc_value_to_json(gpointer value) {
    char *(*to_json)(gpointer, guint) = (char *(*)(gpointer, guint))dlsym(RTLD_DEFAULT, "jsc_value_to_json");
    return to_json != NULL && value != NULL ? to_json(value, 0) : NULL;
}

#endif
