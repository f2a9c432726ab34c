// The C part of the preload library: only its constructor (constructor.c), which calls the Swift
// function `autotrack_preload_start` (AutotrackPreload, `@_cdecl`).
#ifndef AUTOTRACK_PRELOAD_H
#define AUTOTRACK_PRELOAD_H
#endif
