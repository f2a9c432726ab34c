#!/usr/bin/env bash
# Makes sure this machine can build, test and demo Autotrack: the Swift toolchain, the headers of
# the system libraries the package links, and the programs the tests and the demo start. Every
# missing Debian package is installed in one apt-get run (sudo when not root).
set -euo pipefail
case "${1:-}" in
  "") ;;
  -h|--help)
    cat <<'EOF'
usage: Tools/setup.sh
Installs, in one apt-get run (sudo when not root), every Debian package this machine lacks to
build, test and demo Autotrack: system library headers, PostgreSQL, GTK 4, Xvfb, xdotool,
Chromium, rsyslog... Does nothing when all are there. Takes no options but -h, --help.
example: Tools/setup.sh
EOF
    exit 0 ;;
  *) echo "setup: unknown argument '$1'; it takes none (see --help)" >&2; exit 2 ;;
esac
if ! command -v swift >/dev/null 2>&1; then
  echo "setup: no 'swift' on PATH; install the Swift 6 toolchain (https://www.swift.org/install/)" >&2
  exit 1
fi
MISSING=()
WHY=()
# need WHY PACKAGE... when the test before it failed.
need() { WHY+=("$1"); shift; MISSING+=("$@"); }

# SQLite headers for CSQLite; the shell the tests query with.
{ [ -f /usr/include/sqlite3.h ] && command -v sqlite3 >/dev/null 2>&1; } || need "SQLite (CSQLite)" libsqlite3-dev sqlite3
# OpenSSL for ATLPTLS (headers) and the openssl command the TLS tests make certificates with.
{ [ -f /usr/include/openssl/ssl.h ] && command -v openssl >/dev/null 2>&1; } || need "TLS (ATLPTLS)" libssl-dev openssl
# libpq's headers for CLibPQ (PostgresStore), and the server the PostgreSQL tests start in a
# temporary directory (initdb, pg_ctl). The package's own cluster is not used.
{ [ -f /usr/include/postgresql/libpq-fe.h ] && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; } ||
  need "PostgreSQL (PostgresStore and its tests)" libpq-dev postgresql
# GTK 4 (docs/gtk.md): headers for CGtk; Xvfb, xdotool and a D-Bus session for the demo and the GUI
# tests; Debian's GTK 4 example programs the tests track unmodified; python3 for the demo.
pkg-config --exists gtk4 2>/dev/null || need "GTK 4 (CGtk)" libgtk-4-dev pkg-config
command -v Xvfb >/dev/null 2>&1 || need "a virtual display" xvfb xauth
command -v xdotool >/dev/null 2>&1 || need "real input (XTest)" xdotool
command -v dbus-run-session >/dev/null 2>&1 || need "a D-Bus session for GApplication apps" dbus dbus-x11
command -v gtk4-widget-factory >/dev/null 2>&1 || need "unmodified GTK 4 apps to track" gtk-4-examples
# WebKitGTK 6 (GTK 4): the web view test's own sample app links it (CWebKitGtk); the preload only
# looks its functions up in apps that embed it.
pkg-config --exists webkitgtk-6.0 2>/dev/null || need "web views (the web view test's sample app)" libwebkitgtk-6.0-dev
command -v python3 >/dev/null 2>&1 || need "the demo's driver" python3
# readelf and nm: the linkage test reads what the injected libraries link (docs/architecture.md).
{ command -v readelf >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; } || need "the linkage test" binutils
# curl: a real HTTP client for the HTTP server's tests (docs/http-server.md).
command -v curl >/dev/null 2>&1 || need "the HTTP server's tests" curl
# Headless Chromium: the report's browser test opens the HTML report in it (docs/reports.md).
command -v chromium >/dev/null 2>&1 || need "the HTML report's browser test" chromium
# The studio's browser test drives that Chromium through Selenium with Debian's matching driver
# (Tests/StudioTests/browser): nothing downloads a browser. Debian's python3 runs the driver.
command -v chromedriver >/dev/null 2>&1 || need "the studio's browser test (WebDriver)" chromium-driver
# Node.js: the studio's script files pass `node --check` (StudioFilesTests); nothing is installed from npm.
command -v node >/dev/null 2>&1 || need "the studio script's syntax check" nodejs
/usr/bin/python3 -c "import selenium" >/dev/null 2>&1 || need "the studio's browser test (Selenium)" python3-selenium
# rsyslog: ingest-bench's baseline (imtcp -> omfile with sync="on"), started by the bench itself
# with its own configuration, never as the system's service.
command -v rsyslogd >/dev/null 2>&1 || [ -x /usr/sbin/rsyslogd ] || need "ingest-bench's baseline" rsyslog

# GNUstep (docs/objc.md): GCC's Objective-C runtime, gnustep-base and gnustep-gui with their headers
# for CObjCRuntime and the AppKit preload library, the cairo back end the apps draw with, and the
# unmodified GNUstep apps the tests track (EdenMath, TextEdit, CurrencyConverter and Ink).
{ command -v gnustep-config >/dev/null 2>&1 && [ -f /usr/include/GNUstep/AppKit/AppKit.h ] &&
  [ -d /usr/lib/GNUstep/Bundles/libgnustep-back-029.bundle ]; } ||
  need "GNUstep (ObjCRuntime, AppKitTracking)" gnustep-make libgnustep-gui-dev libgnustep-base-dev gobjc \
    gnustep-base-runtime gnustep-gui-runtime gnustep-back0.29 gnustep-back0.29-cairo
{ [ -x /usr/lib/GNUstep/Applications/EdenMath.app/EdenMath ] && [ -x /usr/lib/GNUstep/Applications/TextEdit.app/TextEdit ] &&
  [ -d /usr/lib/GNUstep/Applications/CurrencyConverter.app ]; } ||
  need "unmodified GNUstep apps to track" edenmath.app textedit.app gnustep-examples

if [ ${#MISSING[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing ${MISSING[*]} (for: ${WHY[*]}); install them with your system's package manager" >&2
    exit 1
  fi
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${MISSING[*]} (for: $(IFS=';'; echo "${WHY[*]}"))" >&2
  $SUDO apt-get update -qq >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${MISSING[@]}" >/dev/null
fi
