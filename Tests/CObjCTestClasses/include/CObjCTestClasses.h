// Objective-C classes compiled for the runtime layer's and the Aspects' checks.
#ifndef CObjCTestClasses_h
#define CObjCTestClasses_h
/// Registers the classes (a no-op: linking this file registers them); returns 1.
int atrtest_classes_ready(void);
/// A new ATRCounter (retained; release it with atrtest_release), which counts calls of -tick and
/// answers -twice: with 2 x its argument count, -label with "counter", -add: adding.
void *atrtest_new_counter(void);
void *atrtest_new_sub_counter(void);
void atrtest_release(void *object);
/// How many times -tick ran its own implementation.
long atrtest_ticks(void *counter);
/// Loads a shared library now (dlopen, RTLD_NOW | RTLD_GLOBAL); 1 when loaded.
int atrtest_load_library(const char *name);
/// Ends the process with `status` (exit).
__attribute__((noreturn)) void atrtest_exit(int status);
#endif
