#import <Foundation/Foundation.h>
#include <dlfcn.h>
#include <stdlib.h>
#include "CObjCTestClasses.h"

@interface ATRCounter : NSObject {
@public
    long ticks;
    long total;
    NSString *name;
}
- (void) tick;
- (long) total;
- (void) add: (long)amount;
- (id) label;
- (id) labelWith: (id)suffix;
- (BOOL) isReady;
- (void) setName: (NSString *)n;
- (NSString *) name;
- (void) fail;
- (NSRect) frame;
@end

@implementation ATRCounter
- (void) tick { ticks++; }
- (long) total { return total; }
- (void) add: (long)amount { total += amount; }
- (id) label { return @"counter"; }
- (id) labelWith: (id)suffix { return [@"counter-" stringByAppendingString: suffix]; }
- (BOOL) isReady { return YES; }
- (void) setName: (NSString *)n { ASSIGN(name, n); }
- (NSString *) name { return name; }
- (void) fail { [NSException raise: @"ATRTestException" format: @"fail was called"]; }
- (NSRect) frame { return NSMakeRect(1, 2, 3, 4); }
- (void) dealloc { DESTROY(name); [super dealloc]; }
@end

@interface ATRSubCounter : ATRCounter
@end
@implementation ATRSubCounter
- (id) label { return @"sub"; }
@end

int atrtest_classes_ready(void) { return [ATRCounter class] != Nil && [ATRSubCounter class] != Nil; }
void *atrtest_new_counter(void) { return [[ATRCounter alloc] init]; }
void *atrtest_new_sub_counter(void) { return [[ATRSubCounter alloc] init]; }
void atrtest_release(void *object) { [(id)object release]; }
long atrtest_ticks(void *counter) { return ((ATRCounter *)counter)->ticks; }

int atrtest_load_library(const char *name) { return dlopen(name, RTLD_NOW | RTLD_GLOBAL) != NULL; }
void atrtest_exit(int status) { exit(status); }
