// An AppKit app made for the GNUstep tests: the controls the Debian apps lack (a switch, a slider,
// a pop-up, an editable and a secure text field, an ignored button), each acting on a controller;
// with `lists`, a second window instead: a table in a scroll view, a stepper, a pop-up and a
// scrolling feed whose last button is below the fold.
#ifndef CObjCFixtureApp_h
#define CObjCFixtureApp_h
/// Builds the window (the form, or with `lists` the lists window) and the main menu (Quit: the
/// command key and q) and runs the app; returns at exit.
int atrfixture_run(int lists);
#endif
