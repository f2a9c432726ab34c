// objc-bench's AppKit app: a window whose delegate is a controller, a box of three buttons.
#ifndef CObjCBench_h
#define CObjCBench_h
/// Makes the app and its window (needs a display); 1 on success.
int atrbench_setup(void);
/// The third button (the one clicked).
void *atrbench_button(void);
/// `count` clicks: `-[NSApplication sendAction:@selector(buy:) to:controller from:button]`.
void atrbench_click(long count);
/// How many times the controller's `buy:` ran.
long atrbench_actions(void);
#endif
