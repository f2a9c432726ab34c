import CObjCFixtureApp

// An AppKit app made for the GNUstep tests (Tests/CObjCFixtureApp), run unmodified through
// `autotrack-agent run` like any GNUstep program.
_ = atrfixture_run()
