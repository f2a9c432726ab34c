// WebKitGTK 6 (GTK 4) for the web view test's sample app; the tracking itself links no WebKit.
#ifndef AUTOTRACK_CWEBKITGTK_SHIM_H
#define AUTOTRACK_CWEBKITGTK_SHIM_H

#include <webkit/webkit.h>

#endif
