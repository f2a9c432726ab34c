// GCC's Objective-C runtime behind CObjCRuntime.h: every message that may raise is sent inside
// @try/@catch, and every hooked method runs through one typed trampoline per signature.
#import <Foundation/Foundation.h>
#import <AppKit/AppKit.h>
#include <objc/runtime.h>
#include <objc/message.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include "CObjCRuntime.h"

static _Thread_local char lastName[128];
static _Thread_local char lastReason[512];

static void keep(id exception) {
    const char *name = "an exception that is not an NSException";
    const char *reason = "";
    if (exception != nil && [exception isKindOfClass: [NSException class]]) {
        name = [[exception name] UTF8String];
        reason = [[exception reason] UTF8String];
    }
    strncpy(lastName, name ? name : "", sizeof lastName - 1);
    strncpy(lastReason, reason ? reason : "", sizeof lastReason - 1);
}

const char *atr_last_exception_name(void) { return lastName; }
const char *atr_last_exception_reason(void) { return lastReason; }

#define LOOKUP(receiver, sel, type) ((type)objc_msg_lookup((id)(receiver), (SEL)(sel)))
#define GUARDED(...) \
    if (receiver == NULL) return ATR_NIL; \
    @try { __VA_ARGS__; return ATR_OK; } @catch (id e) { keep(e); return ATR_RAISED; }

/// NSAutoreleasePool, looked up once: pools are made around every advice call.
static Class poolClass;
static id newPool(void) {
    if (poolClass == Nil) poolClass = [NSAutoreleasePool class];
    return [[poolClass alloc] init];
}

// MARK: Lookup

atr_class atr_class_named(const char *name) { return (atr_class)objc_lookUpClass(name); }
atr_sel atr_selector(const char *name) { return (atr_sel)sel_registerName(name); }
const char *atr_selector_name(atr_sel sel) { return sel_getName((SEL)sel); }
const char *atr_class_name(atr_class cls) { return class_getName((Class)cls); }
atr_class atr_superclass(atr_class cls) { return (atr_class)class_getSuperclass((Class)cls); }
atr_class atr_runtime_class(atr_id object) { return object ? (atr_class)object_getClass((id)object) : NULL; }

int atr_is_kind(atr_id object, atr_class cls) {
    if (object == NULL || cls == NULL) return 0;
    for (Class c = object_getClass((id)object); c != Nil; c = class_getSuperclass(c)) {
        if (c == (Class)cls) return 1;
    }
    return 0;
}

uint64_t atr_kinds(atr_id object, const uintptr_t *classes, int count) {
    uint64_t found = 0;
    if (object == NULL) return 0;
    if (count > 64) count = 64;
    for (Class c = object_getClass((id)object); c != Nil; c = class_getSuperclass(c)) {
        for (int i = 0; i < count; i++) {
            if (classes[i] == (uintptr_t)c) found |= (uint64_t)1 << i;
        }
    }
    return found;
}

int atr_responds(atr_id object, atr_sel sel) {
    if (object == NULL) return 0;
    // The dispatch table's answer (cached), not a search of the method lists.
    return class_respondsToSelector(object_getClass((id)object), (SEL)sel) ? 1 : 0;
}

const char *atr_method_types(atr_class cls, atr_sel sel) {
    Method m = class_getInstanceMethod((Class)cls, (SEL)sel);
    return m ? method_getTypeEncoding(m) : NULL;
}

int atr_class_defines(atr_class cls, atr_sel sel) {
    unsigned int count = 0;
    Method *methods = class_copyMethodList((Class)cls, &count);
    int found = 0;
    for (unsigned int i = 0; i < count && !found; i++) {
        if (sel_isEqual(method_getName(methods[i]), (SEL)sel)) found = 1;
    }
    free(methods);
    return found;
}

// MARK: Messages

atr_status atr_send_object(atr_id receiver, atr_sel sel, atr_id *result) {
    GUARDED(*result = LOOKUP(receiver, sel, id (*)(id, SEL))((id)receiver, (SEL)sel))
}
atr_status atr_send_object_object(atr_id receiver, atr_sel sel, atr_id argument, atr_id *result) {
    GUARDED(*result = LOOKUP(receiver, sel, id (*)(id, SEL, id))((id)receiver, (SEL)sel, (id)argument))
}
atr_status atr_send_object_long(atr_id receiver, atr_sel sel, long argument, atr_id *result) {
    GUARDED(*result = LOOKUP(receiver, sel, id (*)(id, SEL, long))((id)receiver, (SEL)sel, argument))
}
atr_status atr_send_object_sel_object_object(atr_id receiver, atr_sel sel, atr_sel a, atr_id b, atr_id c, atr_id *result) {
    GUARDED(*result = LOOKUP(receiver, sel, id (*)(id, SEL, SEL, id, id))((id)receiver, (SEL)sel, (SEL)a, (id)b, (id)c))
}
atr_status atr_send_void(atr_id receiver, atr_sel sel) {
    GUARDED(LOOKUP(receiver, sel, void (*)(id, SEL))((id)receiver, (SEL)sel))
}
atr_status atr_send_void_object(atr_id receiver, atr_sel sel, atr_id argument) {
    GUARDED(LOOKUP(receiver, sel, void (*)(id, SEL, id))((id)receiver, (SEL)sel, (id)argument))
}
atr_status atr_send_long(atr_id receiver, atr_sel sel, long *result) {
    GUARDED(*result = LOOKUP(receiver, sel, long (*)(id, SEL))((id)receiver, (SEL)sel))
}
atr_status atr_send_bool(atr_id receiver, atr_sel sel, int *result) {
    GUARDED(*result = LOOKUP(receiver, sel, BOOL (*)(id, SEL))((id)receiver, (SEL)sel) ? 1 : 0)
}
atr_status atr_send_double(atr_id receiver, atr_sel sel, double *result) {
    GUARDED(*result = LOOKUP(receiver, sel, double (*)(id, SEL))((id)receiver, (SEL)sel))
}
atr_status atr_send_rect(atr_id receiver, atr_sel sel, atr_rect *result) {
    GUARDED({
        NSRect r = LOOKUP(receiver, sel, NSRect (*)(id, SEL))((id)receiver, (SEL)sel);
        *result = (atr_rect){r.origin.x, r.origin.y, r.size.width, r.size.height};
    })
}
atr_status atr_send_convert_rect(atr_id view, atr_rect rect, atr_id other, atr_rect *result) {
    id receiver = (id)view;
    GUARDED({
        NSRect r = [receiver convertRect: NSMakeRect(rect.x, rect.y, rect.width, rect.height) toView: (id)other];
        *result = (atr_rect){r.origin.x, r.origin.y, r.size.width, r.size.height};
    })
}
atr_status atr_send_cell_frame(atr_id matrix, long row, long column, atr_rect *result) {
    id receiver = (id)matrix;
    GUARDED({
        NSRect r = [receiver cellFrameAtRow: row column: column];
        *result = (atr_rect){r.origin.x, r.origin.y, r.size.width, r.size.height};
    })
}
/// The key paths read so far as NSStrings, kept for the process: rules name few keys, and a key
/// made afresh on every read is a string made, autoreleased and freed on every tracked click.
enum { KEPT_KEYS = 64 };
static struct { char *utf8; NSString *string; } keptKeys[KEPT_KEYS];
static int keptKeyCount = 0;
static pthread_mutex_t keptKeyLock = PTHREAD_MUTEX_INITIALIZER;

static NSString *keyString(const char *path) {
    pthread_mutex_lock(&keptKeyLock);
    for (int i = 0; i < keptKeyCount; i++) {
        if (strcmp(keptKeys[i].utf8, path) == 0) {
            NSString *kept = keptKeys[i].string;
            pthread_mutex_unlock(&keptKeyLock);
            return kept;
        }
    }
    NSString *made = [NSString stringWithUTF8String: path];
    if (made != nil && keptKeyCount < KEPT_KEYS) {
        char *copy = strdup(path);
        if (copy != NULL) {
            keptKeys[keptKeyCount].utf8 = copy;
            keptKeys[keptKeyCount].string = [made retain];
            keptKeyCount++;
        }
    }
    pthread_mutex_unlock(&keptKeyLock);
    return made;
}

atr_status atr_value_for_key_path(atr_id object, const char *path, atr_id *result) {
    id receiver = (id)object;
    GUARDED(*result = [receiver valueForKeyPath: keyString(path)])
}
atr_status atr_raise(const char *name, const char *reason) {
    @try {
        [NSException raise: [NSString stringWithUTF8String: name] format: @"%s", reason];
    } @catch (id e) {
        keep(e);
        return ATR_RAISED;
    }
    return ATR_OK;
}

// MARK: Foundation values

void *atr_pool_push(void) { return newPool(); }
void atr_pool_pop(void *pool) { [(NSAutoreleasePool *)pool drain]; }
atr_id atr_string(const char *utf8) { return [NSString stringWithUTF8String: utf8]; }
// Foundation's classes, looked up by name once (each `[X class]` is a lookup by name).
static Class stringClass, numberClass, arrayClass;
static void foundationClasses(void) {
    if (arrayClass != Nil) return;
    stringClass = [NSString class];
    numberClass = [NSNumber class];
    arrayClass = [NSArray class];
}
int atr_is_string(atr_id object) { foundationClasses(); return object && atr_is_kind(object, (atr_class)stringClass); }
int atr_is_number(atr_id object) { foundationClasses(); return object && atr_is_kind(object, (atr_class)numberClass); }
int atr_is_array(atr_id object) { foundationClasses(); return object && atr_is_kind(object, (atr_class)arrayClass); }
const char *atr_string_utf8(atr_id object) { return atr_is_string(object) ? [(NSString *)object UTF8String] : NULL; }
char atr_number_type(atr_id number) {
    if (!atr_is_number(number)) return 0;
    const char *t = [(NSNumber *)number objCType];
    return t ? t[0] : 0;
}
double atr_number_double(atr_id number) { return [(NSNumber *)number doubleValue]; }
long long atr_number_long(atr_id number) { return [(NSNumber *)number longLongValue]; }
long atr_array_count(atr_id array) { return (long)[(NSArray *)array count]; }
atr_id atr_array_at(atr_id array, long index) { return [(NSArray *)array objectAtIndex: (NSUInteger)index]; }
long atr_array_items(atr_id array, atr_id *items, long max) {
    if (!atr_is_array(array)) return -1;
    NSArray *a = (NSArray *)array;
    long count = (long)[a count];
    long n = count < max ? count : max;
    if (n > 0) [a getObjects: (id *)items range: NSMakeRange(0, (NSUInteger)n)];
    return count;
}
/// GNUstep's `-[NSView subviews]` answers an autoreleased copy of the view's `_sub_views` array:
/// a sibling count reads that array itself where it is there (an ivar of NSView, an object, an
/// NSArray), and sends `subviews` elsewhere (another AppKit, a view class that overrides it).
static ptrdiff_t subviewsOffset = -1;
static Class viewClass = Nil;
static IMP viewSubviews = NULL;

static void findSubviewsIvar(void) {
    static int looked = 0;
    if (looked) return;
    looked = 1;
    viewClass = objc_lookUpClass("NSView");
    if (viewClass == Nil) return;
    Ivar ivar = class_getInstanceVariable(viewClass, "_sub_views");
    const char *type = ivar ? ivar_getTypeEncoding(ivar) : NULL;
    if (type != NULL && type[0] == '@') {
        subviewsOffset = ivar_getOffset(ivar);
        viewSubviews = class_getMethodImplementation(viewClass, @selector(subviews));
    }
}

// What a sibling count asks of the classes it meets, remembered per thread (AppKit's objects
// live on the main thread): a runtime class's superclass chain, its `subviews` implementation and
// its instances' `-class` do not change once it is registered, and asking costs a walk of the
// chain or a message send per sibling. Each cache is direct-mapped by the class's address; a
// collision only means asking again.
#define CLASS_CACHE 64
static unsigned classSlot(Class c) { return (unsigned)((((uintptr_t)c >> 4) * 0x9E3779B1u) >> 26) & (CLASS_CACHE - 1); }
static _Thread_local struct { Class runtime; const char *name; } publicNames[CLASS_CACHE];
static _Thread_local Class viewsWithOwnSubviews[CLASS_CACHE];
static _Thread_local Class arrayClasses[CLASS_CACHE];

/// The name of `object`'s public class (`-class`: never a hidden KVO subclass).
static const char *publicClassName(id object) {
    Class c = object_getClass(object);
    unsigned slot = classSlot(c);
    if (publicNames[slot].runtime == c) return publicNames[slot].name;
    const char *name = class_getName([object class]);
    publicNames[slot].runtime = c;
    publicNames[slot].name = name;
    return name;
}

static int isArray(id object) {
    if (object == nil) return 0;
    Class c = object_getClass(object);
    unsigned slot = classSlot(c);
    if (arrayClasses[slot] == c) return 1;
    if (!atr_is_array(object)) return 0;
    arrayClasses[slot] = c;
    return 1;
}

static id subviewsOf(id view) {
    findSubviewsIvar();
    if (subviewsOffset >= 0) {
        Class c = object_getClass(view);
        unsigned slot = classSlot(c);
        int own = viewsWithOwnSubviews[slot] == c;
        if (!own && atr_is_kind(view, (atr_class)viewClass)
            && class_getMethodImplementation(c, @selector(subviews)) == viewSubviews) {
            viewsWithOwnSubviews[slot] = c;
            own = 1;
        }
        if (own) {
            id array = *(id *)((char *)view + subviewsOffset);
            if (array == nil || isArray(array)) return array;
        }
    }
    return [view subviews];
}

long atr_same_class_before(atr_id object, atr_sel sel, atr_id child, const char *name) {
    id receiver = (id)object;
    if (receiver == nil || name == NULL) return 0;
    long count = 0;
    @try {
        id array = sel_isEqual((SEL)sel, @selector(subviews)) ? subviewsOf(receiver)
                                                                : LOOKUP(receiver, sel, id (*)(id, SEL))(receiver, (SEL)sel);
        if (!isArray(array)) return 0;
        NSUInteger n = [(NSArray *)array count];
        // Read in slices of a buffer: one message per slice, not two per sibling.
        id items[32];
        for (NSUInteger done = 0; done < n;) {
            NSUInteger k = n - done < 32 ? n - done : 32;
            [(NSArray *)array getObjects: items range: NSMakeRange(done, k)];
            for (NSUInteger i = 0; i < k; i++) {
                if (items[i] == (id)child) return count;
                const char *itemName = publicClassName(items[i]);
                if (itemName == name || strcmp(itemName, name) == 0) count++;
            }
            done += k;
        }
    } @catch (id e) {
        keep(e);
        return 0;
    }
    return count;
}
atr_status atr_send_rect_of_row(atr_id table, long row, atr_rect *result) {
    id receiver = (id)table;
    GUARDED({
        NSRect r = [receiver rectOfRow: row];
        *result = (atr_rect){r.origin.x, r.origin.y, r.size.width, r.size.height};
    })
}
atr_status atr_table_visible_rows(atr_id table, long *first, long *count) {
    id receiver = (id)table;
    GUARDED({
        NSRange rows = [receiver rowsInRect: [receiver visibleRect]];
        *first = (long)rows.location;
        *count = (long)rows.length;
    })
}
atr_id atr_retain(atr_id object) { return [(id)object retain]; }
void atr_release(atr_id object) { [(id)object release]; }

uint8_t *atr_window_png(atr_id window, const atr_rect *blanked, size_t count, size_t *length, atr_rect *size) {
    uint8_t *bytes = NULL;
    NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
    @try {
        NSView *view = [(NSWindow *)window contentView];
        NSRect bounds = [view bounds];
        NSBitmapImageRep *rep = [view bitmapImageRepForCachingDisplayInRect: bounds];
        if (rep != nil) {
            [view cacheDisplayInRect: bounds toBitmapImageRep: rep];
            long wide = (long)[rep pixelsWide], high = (long)[rep pixelsHigh];
            long row = (long)[rep bytesPerRow], spp = (long)[rep samplesPerPixel];
            unsigned char *data = [rep bitmapData];
            if (data != NULL && [rep bitsPerSample] == 8 && ![rep isPlanar]) {
                for (size_t k = 0; k < count; k++) {
                    long x0 = (long)blanked[k].x, y0 = (long)blanked[k].y;
                    long x1 = x0 + (long)blanked[k].width, y1 = y0 + (long)blanked[k].height;
                    if (x0 < 0) x0 = 0;
                    if (y0 < 0) y0 = 0;
                    if (x1 > wide) x1 = wide;
                    if (y1 > high) y1 = high;
                    for (long y = y0; y < y1; y++) {
                        for (long x = x0; x < x1; x++) {
                            unsigned char *p = data + y * row + x * spp;
                            for (long c = 0; c < spp; c++) p[c] = (c == 3) ? 255 : 158;
                        }
                    }
                }
            }
            NSData *png = [rep representationUsingType: NSPNGFileType properties: [NSDictionary dictionary]];
            if (png != nil && [png length] > 0) {
                *length = [png length];
                bytes = malloc(*length);
                if (bytes) memcpy(bytes, [png bytes], *length);
                *size = (atr_rect){0, 0, (double)wide, (double)high};
            }
        }
    } @catch (id e) {
        keep(e);
        free(bytes);
        bytes = NULL;
    }
    [pool drain];
    return bytes;
}

void atr_free(void *bytes) { free(bytes); }

int atr_window_out(void) { return NSWindowOut; }

/// One call waiting for the main thread.
@interface ATRMainThreadCall : NSObject {
@public
    void (*function)(void *);
    void *context;
}
- (void) run;
@end

@implementation ATRMainThreadCall
- (void) run {
    NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
    @try { function(context); } @catch (id e) { keep(e); }
    [pool drain];
}
@end

void atr_run_on_main_thread(void (*function)(void *), void *context) {
    // A thread GNUstep did not start (the config refresher's, a signal's) is registered first:
    // without it, its pool is no pool and what it autoreleases leaks (GNUstep says so).
    GSRegisterCurrentThread();
    NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
    ATRMainThreadCall *call = [[ATRMainThreadCall alloc] init];
    call->function = function;
    call->context = context;
    @try {
        [call performSelectorOnMainThread: @selector(run) withObject: nil waitUntilDone: NO];
    } @catch (id e) {
        keep(e);
    }
    [call release];
    [pool drain];
}

void atr_run_after(double seconds, void (*function)(void *), void *context) {
    NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
    ATRMainThreadCall *call = [[ATRMainThreadCall alloc] init];
    call->function = function;
    call->context = context;
    @try {
        // AppKit's two modes by their values: this library links Foundation only.
        NSArray *modes = [NSArray arrayWithObjects: NSDefaultRunLoopMode, @"NSModalPanelRunLoopMode", @"NSEventTrackingRunLoopMode", nil];
        [call performSelector: @selector(run) withObject: nil afterDelay: seconds inModes: modes];
    } @catch (id e) {
        keep(e);
    }
    [call release];
    [pool drain];
}

// MARK: Method replacement

typedef struct {
    Class cls;
    SEL sel;
    IMP original;
    Method method;
    atr_signature signature;
    atr_advice advice;
    void *context;
    int live;
    /// ATR_PHASE_BEFORE | ATR_PHASE_AFTER: the phases advice is called for.
    int phases;
} Hook;

enum { MAX_HOOKS = 512 };
static Hook hooks[MAX_HOOKS];
static int hookCount = 0;
static pthread_mutex_t hookLock = PTHREAD_MUTEX_INITIALIZER;
/// Advice running on this thread: a hooked method called from advice runs unadvised.
static _Thread_local int adviceDepth = 0;

/// The hook for `self`'s class (or the nearest superclass hooked) and `cmd`.
static Hook *findHook(id self, SEL cmd) {
    for (Class c = object_getClass(self); c != Nil; c = class_getSuperclass(c)) {
        for (int i = 0; i < hookCount; i++) {
            if (hooks[i].cls == c && sel_isEqual(hooks[i].sel, cmd)) return &hooks[i];
        }
    }
    return NULL;
}

static int advise(Hook *h, int phase, id self, SEL cmd, void **arguments, void *result) {
    if (!h->live || adviceDepth > 0 || !(h->phases & (phase == 0 ? ATR_PHASE_BEFORE : ATR_PHASE_AFTER))) return 0;
    adviceDepth++;
    NSAutoreleasePool *pool = newPool();
    int skip = 0;
    @try {
        skip = h->advice(h->context, phase, self, cmd, arguments, result);
    } @catch (id e) {
        keep(e);
    }
    // An object the advice returns outlives the advice's pool: it goes to the caller's.
    int objectResult = result != NULL && (h->signature == ATR_SIG_OBJECT || h->signature == ATR_SIG_OBJECT_OBJECT);
    id returned = objectResult ? [*(id *)result retain] : nil;
    // Out of the advice before its pool drains: what the drain deallocates is advised as usual.
    adviceDepth--;
    [pool drain];
    [returned autorelease];
    return skip;
}

#define TRAMPOLINE_BEGIN \
    Hook *h = findHook(self, cmd); \
    if (h == NULL) abort(); \
    int skip = advise(h, 0, self, cmd, arguments, RESULT); \
    if (!skip) {
#define TRAMPOLINE_END \
    } \
    advise(h, 1, self, cmd, arguments, RESULT);

#define RESULT NULL
static void tr_void(id self, SEL cmd) {
    void *arguments[1] = {NULL};
    TRAMPOLINE_BEGIN ((void (*)(id, SEL))h->original)(self, cmd); TRAMPOLINE_END
}
static void tr_void_object(id self, SEL cmd, id a) {
    void *arguments[1] = {&a};
    TRAMPOLINE_BEGIN ((void (*)(id, SEL, id))h->original)(self, cmd, a); TRAMPOLINE_END
}
static void tr_void_int_long(id self, SEL cmd, int a, long b) {
    void *arguments[2] = {&a, &b};
    TRAMPOLINE_BEGIN ((void (*)(id, SEL, int, long))h->original)(self, cmd, a, b); TRAMPOLINE_END
}
static void tr_void_bool(id self, SEL cmd, BOOL a) {
    void *arguments[1] = {&a};
    TRAMPOLINE_BEGIN ((void (*)(id, SEL, BOOL))h->original)(self, cmd, a); TRAMPOLINE_END
}
static void tr_void_long(id self, SEL cmd, long a) {
    void *arguments[1] = {&a};
    TRAMPOLINE_BEGIN ((void (*)(id, SEL, long))h->original)(self, cmd, a); TRAMPOLINE_END
}
#undef RESULT
#define RESULT &r
static BOOL tr_bool_sel_obj_obj(id self, SEL cmd, SEL a, id b, id c) {
    void *arguments[3] = {&a, &b, &c};
    BOOL r = NO;
    TRAMPOLINE_BEGIN r = ((BOOL (*)(id, SEL, SEL, id, id))h->original)(self, cmd, a, b, c); TRAMPOLINE_END
    return r;
}
static id tr_object(id self, SEL cmd) {
    void *arguments[1] = {NULL};
    id r = nil;
    TRAMPOLINE_BEGIN r = ((id (*)(id, SEL))h->original)(self, cmd); TRAMPOLINE_END
    return r;
}
static id tr_object_object(id self, SEL cmd, id a) {
    void *arguments[1] = {&a};
    id r = nil;
    TRAMPOLINE_BEGIN r = ((id (*)(id, SEL, id))h->original)(self, cmd, a); TRAMPOLINE_END
    return r;
}
static long tr_long(id self, SEL cmd) {
    void *arguments[1] = {NULL};
    long r = 0;
    TRAMPOLINE_BEGIN r = ((long (*)(id, SEL))h->original)(self, cmd); TRAMPOLINE_END
    return r;
}
static BOOL tr_bool(id self, SEL cmd) {
    void *arguments[1] = {NULL};
    BOOL r = NO;
    TRAMPOLINE_BEGIN r = ((BOOL (*)(id, SEL))h->original)(self, cmd); TRAMPOLINE_END
    return r;
}
#undef RESULT

static const IMP trampolines[ATR_SIG_COUNT] = {
    [ATR_SIG_VOID] = (IMP)tr_void,
    [ATR_SIG_VOID_OBJECT] = (IMP)tr_void_object,
    [ATR_SIG_BOOL_SEL_OBJ_OBJ] = (IMP)tr_bool_sel_obj_obj,
    [ATR_SIG_OBJECT] = (IMP)tr_object,
    [ATR_SIG_OBJECT_OBJECT] = (IMP)tr_object_object,
    [ATR_SIG_VOID_INT_LONG] = (IMP)tr_void_int_long,
    [ATR_SIG_LONG] = (IMP)tr_long,
    [ATR_SIG_VOID_LONG] = (IMP)tr_void_long,
    [ATR_SIG_BOOL] = (IMP)tr_bool,
    [ATR_SIG_VOID_BOOL] = (IMP)tr_void_bool,
};

/// The type letters of an encoding, offsets and qualifiers dropped: "C40@0:8:16@24@32" -> "C@::@@".
static void letters(const char *types, char *out, size_t size) {
    size_t n = 0;
    for (const char *p = types; *p && n + 1 < size; p++) {
        char ch = *p;
        if ((ch >= '0' && ch <= '9') || strchr("rnNoORV", ch)) continue;
        if (ch == '{' || ch == '(' || ch == '[' || ch == '^') { out[n++] = '?'; break; }
        out[n++] = ch;
    }
    out[n] = 0;
}

int atr_signature_of(const char *types) {
    if (types == NULL) return -1;
    char t[64];
    letters(types, t, sizeof t);
    static const struct { const char *letters; atr_signature sig; } known[] = {
        {"v@:", ATR_SIG_VOID}, {"v@:@", ATR_SIG_VOID_OBJECT}, {"C@::@@", ATR_SIG_BOOL_SEL_OBJ_OBJ}, {"c@::@@", ATR_SIG_BOOL_SEL_OBJ_OBJ},
        {"@@:", ATR_SIG_OBJECT}, {"@@:@", ATR_SIG_OBJECT_OBJECT}, {"v@:iq", ATR_SIG_VOID_INT_LONG}, {"v@:Iq", ATR_SIG_VOID_INT_LONG},
        {"q@:", ATR_SIG_LONG}, {"Q@:", ATR_SIG_LONG}, {"l@:", ATR_SIG_LONG}, {"v@:q", ATR_SIG_VOID_LONG}, {"v@:Q", ATR_SIG_VOID_LONG},
        {"C@:", ATR_SIG_BOOL}, {"c@:", ATR_SIG_BOOL}, {"v@:C", ATR_SIG_VOID_BOOL}, {"v@:c", ATR_SIG_VOID_BOOL},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(t, known[i].letters) == 0) return known[i].sig;
    }
    return -1;
}

static int related(Class a, Class b) {
    for (Class c = a; c != Nil; c = class_getSuperclass(c)) if (c == b) return 1;
    for (Class c = b; c != Nil; c = class_getSuperclass(c)) if (c == a) return 1;
    return 0;
}

int atr_hook_install(atr_class cls, atr_sel sel, atr_advice advice, void *context, int phases) {
    Method m = class_getInstanceMethod((Class)cls, (SEL)sel);
    if (m == NULL) return -1;
    int sig = atr_signature_of(method_getTypeEncoding(m));
    if (sig < 0) return -2;
    pthread_mutex_lock(&hookLock);
    for (int i = 0; i < hookCount; i++) {
        if (hooks[i].live && sel_isEqual(hooks[i].sel, (SEL)sel) && related(hooks[i].cls, (Class)cls)) {
            pthread_mutex_unlock(&hookLock);
            return -3;
        }
    }
    if (hookCount >= MAX_HOOKS) { pthread_mutex_unlock(&hookLock); return -4; }
    // An inherited method is first copied onto the class, so only this class's calls are advised.
    if (!atr_class_defines(cls, sel)) {
        class_addMethod((Class)cls, (SEL)sel, method_getImplementation(m), method_getTypeEncoding(m));
        m = class_getInstanceMethod((Class)cls, (SEL)sel);
    }
    int n = hookCount;
    hooks[n] = (Hook){(Class)cls, (SEL)sel, method_getImplementation(m), m, (atr_signature)sig, advice, context, 1, phases};
    hookCount++;
    method_setImplementation(m, trampolines[sig]);
    pthread_mutex_unlock(&hookLock);
    return n;
}

void atr_hook_remove(int hook) {
    if (hook < 0 || hook >= hookCount) return;
    pthread_mutex_lock(&hookLock);
    Hook *h = &hooks[hook];
    if (h->live) {
        method_setImplementation(h->method, h->original);
        h->live = 0;
        // The slot stays (findHook may still meet it in a call under way) but matches nothing new.
        h->cls = Nil;
    }
    pthread_mutex_unlock(&hookLock);
}

void atr_hook_call_original(int hook, atr_id object, void **a, void *result) {
    if (hook < 0 || hook >= hookCount) return;
    Hook *h = &hooks[hook];
    id self = (id)object;
    SEL cmd = h->sel;
    switch (h->signature) {
    case ATR_SIG_VOID: ((void (*)(id, SEL))h->original)(self, cmd); break;
    case ATR_SIG_VOID_OBJECT: ((void (*)(id, SEL, id))h->original)(self, cmd, *(id *)a[0]); break;
    case ATR_SIG_BOOL_SEL_OBJ_OBJ: {
        BOOL r = ((BOOL (*)(id, SEL, SEL, id, id))h->original)(self, cmd, *(SEL *)a[0], *(id *)a[1], *(id *)a[2]);
        if (result) *(BOOL *)result = r;
        break;
    }
    case ATR_SIG_OBJECT: {
        id r = ((id (*)(id, SEL))h->original)(self, cmd);
        if (result) *(id *)result = r;
        break;
    }
    case ATR_SIG_OBJECT_OBJECT: {
        id r = ((id (*)(id, SEL, id))h->original)(self, cmd, *(id *)a[0]);
        if (result) *(id *)result = r;
        break;
    }
    case ATR_SIG_VOID_INT_LONG: ((void (*)(id, SEL, int, long))h->original)(self, cmd, *(int *)a[0], *(long *)a[1]); break;
    case ATR_SIG_LONG: {
        long r = ((long (*)(id, SEL))h->original)(self, cmd);
        if (result) *(long *)result = r;
        break;
    }
    case ATR_SIG_VOID_LONG: ((void (*)(id, SEL, long))h->original)(self, cmd, *(long *)a[0]); break;
    case ATR_SIG_VOID_BOOL: ((void (*)(id, SEL, BOOL))h->original)(self, cmd, *(BOOL *)a[0]); break;
    case ATR_SIG_BOOL: {
        BOOL r = ((BOOL (*)(id, SEL))h->original)(self, cmd);
        if (result) *(BOOL *)result = r;
        break;
    }
    default: break;
    }
}

// MARK: Classes as they load

static void (*classLoadCallback)(atr_class) = NULL;
extern void (*_objc_load_callback)(Class, struct objc_category *);

static void classLoaded(Class cls, struct objc_category *category) {
    if (category == NULL && classLoadCallback != NULL) classLoadCallback((atr_class)cls);
}

void atr_on_class_load(void (*callback)(atr_class cls)) {
    classLoadCallback = callback;
    _objc_load_callback = callback ? classLoaded : NULL;
}
