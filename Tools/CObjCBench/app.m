#import <Foundation/Foundation.h>
#import <AppKit/AppKit.h>
#include "CObjCBench.h"

/// The app's own handler: counts the click into a label, as a shop's "buy" would update a badge.
@interface BenchController : NSObject {
@public
    long count;
    NSTextField *label;
}
- (void) buy: (id)sender;
@end

@implementation BenchController
- (void) buy: (id)sender {
    count++;
    [label setIntValue: (int)count];
}
@end

static BenchController *controller;
static NSButton *button;

int atrbench_setup(void) {
    // The bench's own pool for the process's life (its main has none).
    [[NSAutoreleasePool alloc] init];
    @try {
        [NSApplication sharedApplication];
        NSWindow *window = [[NSWindow alloc] initWithContentRect: NSMakeRect(0, 0, 400, 300)
                                                       styleMask: NSTitledWindowMask backing: NSBackingStoreBuffered defer: NO];
        controller = [[BenchController alloc] init];
        [window setDelegate: (id)controller];
        NSView *content = [window contentView];
        controller->label = [[NSTextField alloc] initWithFrame: NSMakeRect(10, 250, 200, 24)];
        [controller->label setEditable: NO];
        [content addSubview: controller->label];
        NSBox *box = [[NSBox alloc] initWithFrame: NSMakeRect(10, 10, 380, 200)];
        [content addSubview: box];
        NSArray *titles = [NSArray arrayWithObjects: @"Favourite", @"Share", @"Buy", nil];
        for (NSUInteger i = 0; i < [titles count]; i++) {
            NSButton *b = [[NSButton alloc] initWithFrame: NSMakeRect(10 + 110 * i, 10, 100, 30)];
            [b setTitle: [titles objectAtIndex: i]];
            [b setTarget: controller];
            [b setAction: @selector(buy:)];
            [[box contentView] addSubview: b];
            button = b;
        }
        [window orderFront: nil];
        return 1;
    } @catch (id e) {
        return 0;
    }
}

void *atrbench_button(void) { return button; }

void atrbench_click(long count) {
    NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
    for (long i = 0; i < count; i++) [NSApp sendAction: @selector(buy:) to: controller from: button];
    [pool drain];
}

long atrbench_actions(void) { return controller->count; }
