#import <Foundation/Foundation.h>
#import <AppKit/AppKit.h>
#include "CObjCFixtureApp.h"

/// The form's controller, the window's delegate: the business object rules read (`order`).
@interface FormController : NSObject {
@public
    NSString *order;
    /// Where `moved:` takes its sender, at the same place in the window, and back.
    NSBox *wrap;
}
- (void) changed: (id)sender;
- (void) moved: (id)sender;
- (NSString *) order;
@end

@implementation FormController
- (void) changed: (id)sender { }
/// Moves `sender` between the window's content view and `wrap`'s content view, where it shows
/// at the same place: the next click on it has another path.
- (void) moved: (id)sender {
    [sender retain];
    NSView *inside = [wrap contentView];
    BOOL wrapped = [sender superview] == inside;
    [sender removeFromSuperview];
    if (wrapped) {
        [sender setFrame: NSMakeRect(250, 20, 100, 24)];
        [[[wrap window] contentView] addSubview: sender];
    } else {
        [sender setFrame: NSMakeRect(10, 10, 100, 24)];
        [inside addSubview: sender];
    }
    [sender release];
}
- (NSString *) order { return order; }
@end

/// The lists window's controller and delegate: the table's data source, what the rules read.
@interface ListController : NSObject {
@public
    NSArray *names;
}
- (void) chose: (id)sender;
- (NSString *) shop;
@end

@implementation ListController
- (void) chose: (id)sender { }
- (NSString *) shop { return @"shop-7"; }
- (NSInteger) numberOfRowsInTableView: (NSTableView *)table { return (NSInteger)[names count]; }
- (id) tableView: (NSTableView *)table objectValueForTableColumn: (NSTableColumn *)column row: (NSInteger)row {
    return [names objectAtIndex: (NSUInteger)row];
}
@end

/// A document view whose origin is at the top, as lists and feeds are laid out.
@interface FlippedView : NSView
@end
@implementation FlippedView
- (BOOL) isFlipped { return YES; }
@end

static NSButton *button(NSString *title, NSRect frame, id target);

/// `control` (a slider, a stepper) from 0 to 10, sending `action` to `target`.
static id ranged(id control, id target, SEL action) {
    [control setMinValue: 0];
    [control setMaxValue: 10];
    [control setTarget: target];
    [control setAction: action];
    return control;
}

/// A pop-up of the three sizes, sending `action` to `target`.
static NSPopUpButton *sizes(NSRect frame, id target, SEL action) {
    NSPopUpButton *size = [[NSPopUpButton alloc] initWithFrame: frame pullsDown: NO];
    [size addItemsWithTitles: [NSArray arrayWithObjects: @"Small", @"Medium", @"Large", nil]];
    [size setTarget: target];
    [size setAction: action];
    return size;
}

static NSWindow *listsWindow(void) {
    ListController *controller = [[ListController alloc] init];
    NSMutableArray *names = [NSMutableArray array];
    for (int i = 0; i < 40; i++) [names addObject: [NSString stringWithFormat: @"Item %d", i]];
    controller->names = [names retain];
    NSWindow *window = [[NSWindow alloc] initWithContentRect: NSMakeRect(100, 100, 440, 440)
                                                   styleMask: NSTitledWindowMask backing: NSBackingStoreBuffered defer: NO];
    [window setTitle: @"Fixture lists"];
    [window setDelegate: (id)controller];
    NSView *content = [window contentView];

    NSScrollView *rows = [[NSScrollView alloc] initWithFrame: NSMakeRect(10, 170, 200, 260)];
    [rows setHasVerticalScroller: YES];
    NSTableView *table = [[NSTableView alloc] initWithFrame: NSMakeRect(0, 0, 180, 260)];
    NSTableColumn *column = [[NSTableColumn alloc] initWithIdentifier: @"name"];
    [column setWidth: 170];
    [table addTableColumn: column];
    [table setRowHeight: 20];
    [table setDataSource: (id)controller];
    [table setTarget: controller];
    [table setAction: @selector(chose:)];
    [rows setDocumentView: table];
    [content addSubview: rows];

    NSStepper *stepper = ranged([[NSStepper alloc] initWithFrame: NSMakeRect(230, 396, 20, 30)], controller, @selector(chose:));
    [stepper setIncrement: 1];
    [content addSubview: stepper];
    [content addSubview: sizes(NSMakeRect(230, 356, 150, 24), controller, @selector(chose:))];

    NSScrollView *feed = [[NSScrollView alloc] initWithFrame: NSMakeRect(230, 10, 200, 330)];
    [feed setHasVerticalScroller: YES];
    [feed setLineScroll: 40];
    FlippedView *page = [[FlippedView alloc] initWithFrame: NSMakeRect(0, 0, 180, 900)];
    [page addSubview: button(@"Top", NSMakeRect(10, 10, 150, 24), controller)];
    [page addSubview: button(@"Promo", NSMakeRect(10, 700, 150, 24), controller)];
    [feed setDocumentView: page];
    [content addSubview: feed];
    return window;
}

static NSButton *button(NSString *title, NSRect frame, id target) {
    NSButton *b = [[NSButton alloc] initWithFrame: frame];
    [b setTitle: title];
    [b setTarget: target];
    [b setAction: @selector(changed:)];
    return b;
}

int atrfixture_run(int lists) {
    NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
    [NSApplication sharedApplication];
    NSMenu *menu = [[NSMenu alloc] initWithTitle: @"Fixture"];
    [menu addItemWithTitle: @"Quit" action: @selector(terminate:) keyEquivalent: @"q"];
    [NSApp setMainMenu: menu];
    if (lists) {
        [listsWindow() makeKeyAndOrderFront: nil];
        [NSApp run];
        [pool drain];
        return 0;
    }

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

    [content addSubview: ranged([[NSSlider alloc] initWithFrame: NSMakeRect(10, 180, 200, 24)], controller, @selector(changed:))];
    [content addSubview: sizes(NSMakeRect(10, 140, 150, 24), controller, @selector(changed:))];

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
    // A box without title or border whose content view covers the "Move" button's place.
    NSBox *wrap = [[NSBox alloc] initWithFrame: NSMakeRect(240, 10, 120, 44)];
    [wrap setTitlePosition: NSNoTitle];
    [wrap setBorderType: NSNoBorder];
    [wrap setContentViewMargins: NSMakeSize(0, 0)];
    [content addSubview: wrap];
    controller->wrap = wrap;
    NSButton *move = button(@"Move", NSMakeRect(250, 20, 100, 24), controller);
    [move setAction: @selector(moved:)];
    [content addSubview: move];

    [window makeKeyAndOrderFront: nil];
    [NSApp run];
    [pool drain];
    return 0;
}
