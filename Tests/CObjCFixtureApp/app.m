#import <Foundation/Foundation.h>
#import <AppKit/AppKit.h>
#include "CObjCFixtureApp.h"

/// The form's controller, the window's delegate: the business object rules read (`order`).
@interface FormController : NSObject {
@public
    NSString *order;
}
- (void) changed: (id)sender;
- (NSString *) order;
@end

@implementation FormController
- (void) changed: (id)sender { }
- (NSString *) order { return order; }
@end

static NSButton *button(NSString *title, NSRect frame, id target) {
    NSButton *b = [[NSButton alloc] initWithFrame: frame];
    [b setTitle: title];
    [b setTarget: target];
    [b setAction: @selector(changed:)];
    return b;
}

int atrfixture_run(void) {
    NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
    [NSApplication sharedApplication];
    NSMenu *menu = [[NSMenu alloc] initWithTitle: @"Fixture"];
    [menu addItemWithTitle: @"Quit" action: @selector(terminate:) keyEquivalent: @"q"];
    [NSApp setMainMenu: menu];

    FormController *controller = [[FormController alloc] init];
    controller->order = @"order-42";
    NSWindow *window = [[NSWindow alloc] initWithContentRect: NSMakeRect(100, 100, 400, 260)
                                                   styleMask: NSTitledWindowMask backing: NSBackingStoreBuffered defer: NO];
    [window setTitle: @"Fixture form"];
    [window setDelegate: (id)controller];
    NSView *content = [window contentView];

    NSButton *gift = button(@"Gift wrap", NSMakeRect(10, 220, 150, 24), controller);
    [gift setButtonType: NSSwitchButton];
    [content addSubview: gift];

    NSSlider *slider = [[NSSlider alloc] initWithFrame: NSMakeRect(10, 180, 200, 24)];
    [slider setMinValue: 0];
    [slider setMaxValue: 10];
    [slider setTarget: controller];
    [slider setAction: @selector(changed:)];
    [content addSubview: slider];

    NSPopUpButton *size = [[NSPopUpButton alloc] initWithFrame: NSMakeRect(10, 140, 150, 24) pullsDown: NO];
    [size addItemsWithTitles: [NSArray arrayWithObjects: @"Small", @"Medium", @"Large", nil]];
    [size setTarget: controller];
    [size setAction: @selector(changed:)];
    [content addSubview: size];

    NSTextField *name = [[NSTextField alloc] initWithFrame: NSMakeRect(10, 100, 200, 24)];
    [name setEditable: YES];
    [name setTarget: controller];
    [name setAction: @selector(changed:)];
    [content addSubview: name];

    NSSecureTextField *password = [[NSSecureTextField alloc] initWithFrame: NSMakeRect(10, 60, 200, 24)];
    [password setTarget: controller];
    [password setAction: @selector(changed:)];
    [content addSubview: password];

    NSButton *secret = button(@"Secret", NSMakeRect(10, 20, 100, 24), controller);
    if ([secret respondsToSelector: @selector(setIdentifier:)]) [secret setIdentifier: @"autotrack-ignore"];
    [content addSubview: secret];
    NSButton *buy = button(@"Buy", NSMakeRect(120, 20, 100, 24), controller);
    [content addSubview: buy];

    [window makeKeyAndOrderFront: nil];
    [NSApp run];
    [pool drain];
    return 0;
}
