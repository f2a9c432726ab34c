// The GNUstep preload library's entry: the dynamic loader runs this constructor when the library
// is loaded (LD_PRELOAD), before the program's main; it hands over to Swift at once.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include "CAutotrackObjCPreload.h"

extern void autotrack_objc_preload_start(void);

__attribute__((constructor)) static void autotrack_objc_preload_constructor(void) { autotrack_objc_preload_start(); }

const char *autotrack_objc_blocks_runtime_path(void) {
    void *symbol = dlsym(RTLD_DEFAULT, "_Block_copy");
    Dl_info info;
    if (symbol == NULL || dladdr(symbol, &info) == 0 || info.dli_fname == NULL) return "";
    return info.dli_fname;
}

int autotrack_objc_blocks_runtime_is_swifts(void) {
    return strstr(autotrack_objc_blocks_runtime_path(), "libBlocksRuntime") != NULL;
}
