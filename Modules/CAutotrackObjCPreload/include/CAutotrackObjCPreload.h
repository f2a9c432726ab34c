// The GNUstep preload library's C entry (its constructor is in constructor.c).
#ifndef CAutotrackObjCPreload_h
#define CAutotrackObjCPreload_h
/// Whether `_Block_copy` resolves to the blocks runtime Dispatch was built with (not GNUstep
/// base's), so Dispatch's blocks can run in this process: 1 yes, 0 no.
int autotrack_objc_blocks_runtime_is_swifts(void);
/// The path of the library `_Block_copy` resolves to ("" when unknown).
const char *autotrack_objc_blocks_runtime_path(void);
#endif
