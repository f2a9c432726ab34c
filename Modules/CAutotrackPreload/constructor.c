// The preload library's entry: the dynamic loader runs this constructor when the library is
// loaded (LD_PRELOAD), before the program's main; it hands over to Swift at once.
#include "CAutotrackPreload.h"

extern void autotrack_preload_start(void);

__attribute__((constructor)) static void autotrack_preload_constructor(void) { autotrack_preload_start(); }
