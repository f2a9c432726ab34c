// The one seam between Swift and the Objective-C runtime (docs/objc.md "The runtime seam").
//
// Plain C: no Objective-C type crosses it, so Swift imports it without an Objective-C compiler.
// Every function that sends a message catches any exception the message raises (@try/@catch in
// shim.m) and returns ATR_RAISED with the exception's name and reason kept per thread
// (atr_last_exception_name/_reason): no Objective-C exception ever unwinds through a Swift frame.
// This file is implemented for GCC's runtime (objc_msg_lookup); an implementation over Apple's
// runtime (objc_msgSend) keeps the same declarations.
#ifndef CObjCRuntime_h
#define CObjCRuntime_h

#include <stdint.h>
#include <stddef.h>

typedef void *atr_id;
typedef const void *atr_sel;
typedef void *atr_class;

typedef enum { ATR_OK = 0, ATR_RAISED = 1, ATR_NIL = 2 } atr_status;

typedef struct { double x, y, width, height; } atr_rect;

// MARK: Lookup
atr_class atr_class_named(const char *name);
atr_sel atr_selector(const char *name);
const char *atr_selector_name(atr_sel sel);
const char *atr_class_name(atr_class cls);
atr_class atr_superclass(atr_class cls);
/// The class the runtime holds for the object (a hidden KVO subclass included).
atr_class atr_runtime_class(atr_id object);
/// Whether the object's runtime class or one of its superclasses is `cls`.
int atr_is_kind(atr_id object, atr_class cls);
/// Which of `classes` (addresses; 0 never matches; at most 64) `object` is a kind of, in one walk
/// up its class chain: bit i set for `classes[i]`.
uint64_t atr_kinds(atr_id object, const uintptr_t *classes, int count);
/// Whether instances of the object's runtime class implement `sel` (no forwarding).
int atr_responds(atr_id object, atr_sel sel);
/// The type encoding of the instance method `sel` of `cls`, NULL when it has none.
const char *atr_method_types(atr_class cls, atr_sel sel);
/// Whether `cls` itself (not a superclass) implements the instance method `sel`.
int atr_class_defines(atr_class cls, atr_sel sel);

// MARK: Messages (each catches what it raises)
atr_status atr_send_object(atr_id receiver, atr_sel sel, atr_id *result);
atr_status atr_send_object_object(atr_id receiver, atr_sel sel, atr_id argument, atr_id *result);
atr_status atr_send_object_long(atr_id receiver, atr_sel sel, long argument, atr_id *result);
atr_status atr_send_object_sel_object_object(atr_id receiver, atr_sel sel, atr_sel a, atr_id b, atr_id c, atr_id *result);
atr_status atr_send_void(atr_id receiver, atr_sel sel);
atr_status atr_send_void_object(atr_id receiver, atr_sel sel, atr_id argument);
atr_status atr_send_long(atr_id receiver, atr_sel sel, long *result);
atr_status atr_send_bool(atr_id receiver, atr_sel sel, int *result);
atr_status atr_send_double(atr_id receiver, atr_sel sel, double *result);
atr_status atr_send_rect(atr_id receiver, atr_sel sel, atr_rect *result);
/// `[view convertRect:rect toView:other]`.
atr_status atr_send_convert_rect(atr_id view, atr_rect rect, atr_id other, atr_rect *result);
/// `[matrix cellFrameAtRow:row column:column]`.
atr_status atr_send_cell_frame(atr_id matrix, long row, long column, atr_rect *result);
/// `[object valueForKeyPath:path]` (an NSUnknownKeyException is ATR_RAISED).
atr_status atr_value_for_key_path(atr_id object, const char *path, atr_id *result);
/// Raises an NSException named `name` (tests of the catching).
atr_status atr_raise(const char *name, const char *reason);
const char *atr_last_exception_name(void);
const char *atr_last_exception_reason(void);

// MARK: Foundation values
void *atr_pool_push(void);
void atr_pool_pop(void *pool);
/// An autoreleased NSString of UTF-8 bytes.
atr_id atr_string(const char *utf8);
/// A string object's UTF-8 bytes (valid until the pool is popped), NULL when not a string.
const char *atr_string_utf8(atr_id object);
int atr_is_string(atr_id object);
int atr_is_number(atr_id object);
int atr_is_array(atr_id object);
/// An NSNumber's objCType first letter ('c' for BOOL, 'd', 'q', ...), 0 when not a number.
char atr_number_type(atr_id number);
double atr_number_double(atr_id number);
long long atr_number_long(atr_id number);
long atr_array_count(atr_id array);
atr_id atr_array_at(atr_id array, long index);
/// Up to `max` items of an NSArray into `items`; how many the array holds (-1: not an array).
long atr_array_items(atr_id array, atr_id *items, long max);
/// Of the array `[object sel]` answers, how many items before `child` have a class (`-class`)
/// named `name` (all of them when `child` is not there; 0 when the answer is not an array or
/// the send raises). One call for a whole sibling count, no array copied out.
long atr_same_class_before(atr_id object, atr_sel sel, atr_id child, const char *name);
/// `-[NSTableView rectOfRow:]` of row `row`.
atr_status atr_send_rect_of_row(atr_id table, long row, atr_rect *result);
/// The rows of `table` inside its visible rect (`rowsInRect:` of `visibleRect`): the first and how many.
atr_status atr_table_visible_rows(atr_id table, long *first, long *count);
atr_id atr_retain(atr_id object);
void atr_release(atr_id object);
/// PNG bytes of the window's content view drawn now (malloc'd, the caller frees), NULL on failure;
/// `size` receives the picture's width and height in pixels. The `count` rectangles of `blanked`
/// (pixels, origin at the top left) are painted over in grey.
uint8_t *atr_window_png(atr_id window, const atr_rect *blanked, size_t count, size_t *length, atr_rect *size);
/// Frees what `atr_window_png` returned.
void atr_free(void *bytes);
/// Runs `function(context)` on the main thread at its run loop's next turn (from any thread).
void atr_run_on_main_thread(void (*function)(void *context), void *context);
/// Calls `function(context)` once, `seconds` from now, on this thread's run loop (the main
/// thread's: call it there), in the default, modal and event-tracking modes, inside a pool.
void atr_run_after(double seconds, void (*function)(void *context), void *context);

/// AppKit's `NSWindowOut` as this AppKit defines it (GNUstep: 2, Apple: 0).
int atr_window_out(void);

// MARK: Method replacement
/// The signatures a trampoline exists for (the method's argument and return types).
typedef enum {
    ATR_SIG_VOID = 0,         // v@:
    ATR_SIG_VOID_OBJECT,      // v@:@
    ATR_SIG_BOOL_SEL_OBJ_OBJ, // C@::@@  (sendAction:to:from:)
    ATR_SIG_OBJECT,           // @@:
    ATR_SIG_OBJECT_OBJECT,    // @@:@
    ATR_SIG_VOID_INT_LONG,    // v@:iq   (orderWindow:relativeTo:)
    ATR_SIG_LONG,             // q@:
    ATR_SIG_VOID_LONG,        // v@:q
    ATR_SIG_BOOL,             // C@:
    ATR_SIG_VOID_BOOL,        // v@:C    (activateIgnoringOtherApps:)
    ATR_SIG_COUNT
} atr_signature;

/// Advice around one call: `phase` 0 before (return 1 to skip the original: "instead"), 1 after.
/// `arguments[i]` points at argument i after self and _cmd; `result` at the return value (NULL
/// for void). Runs inside an autorelease pool of its own; it must not raise.
typedef int (*atr_advice)(void *context, int phase, atr_id self, atr_sel cmd, void **arguments, void *result);

/// Which signature the type encoding `types` is, -1 when no trampoline fits it.
int atr_signature_of(const char *types);
/// Replaces `cls`'s method `sel` (its own, or an inherited one copied onto it) by the trampoline
/// of its signature; the trampoline calls `advice` and the original implementation. Returns a
/// hook number ≥ 0, or -1 when the class has no such method, -2 when the signature has no
/// trampoline, -3 when `cls` or a superclass already has this selector hooked.
/// `phases`: which calls of `advice` the hook makes (`ATR_PHASE_BEFORE`, `ATR_PHASE_AFTER`, or both);
/// a phase not asked for costs the hooked call nothing (no pool, no call).
enum { ATR_PHASE_BEFORE = 1, ATR_PHASE_AFTER = 2 };
int atr_hook_install(atr_class cls, atr_sel sel, atr_advice advice, void *context, int phases);
/// The original implementation is put back.
void atr_hook_remove(int hook);
/// Calls the original implementation of hook `hook` (for "instead" advice that still wants it).
void atr_hook_call_original(int hook, atr_id self, void **arguments, void *result);

/// Called once for each class the runtime registers from now on (classes of the app, loaded
/// after the preload library's constructor); NULL to stop.
void atr_on_class_load(void (*callback)(atr_class cls));

#endif
