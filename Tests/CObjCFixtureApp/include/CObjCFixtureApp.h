// An AppKit app made for the GNUstep tests: the controls the Debian apps lack (a switch, a slider,
// a pop-up, an editable and a secure text field, an ignored button), each acting on a controller.
#ifndef CObjCFixtureApp_h
#define CObjCFixtureApp_h
/// Builds the window and the main menu (Quit: the command key and q) and runs the app; returns at exit.
int atrfixture_run(void);
#endif
