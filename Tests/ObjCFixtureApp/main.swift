import CObjCFixtureApp

// An AppKit app made for the GNUstep tests (Tests/CObjCFixtureApp), run unmodified through
// `autotrack-agent run` like any GNUstep program. `--lists`: the lists window instead of the form.
_ = atrfixture_run(CommandLine.arguments.contains("--lists") ? 1 : 0)
