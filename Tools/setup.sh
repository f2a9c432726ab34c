#!/usr/bin/env bash
# Makes sure this machine can build Autotrack: the Swift toolchain, and SQLite's headers for the
# CSQLite system library (Debian/Ubuntu: libsqlite3-dev). Installs them with apt-get when it can.
set -euo pipefail
if ! command -v swift >/dev/null 2>&1; then
  echo "setup: no 'swift' on PATH; install the Swift 6 toolchain (https://www.swift.org/install/)" >&2
  exit 1
fi
if [ ! -f /usr/include/sqlite3.h ] || ! command -v sqlite3 >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing libsqlite3-dev and sqlite3 (SQLite headers for CSQLite; the shell the tests query with)" >&2
    $SUDO apt-get update -qq >/dev/null
    $SUDO apt-get install -y -qq libsqlite3-dev sqlite3 >/dev/null
  else
    echo "setup: SQLite headers (sqlite3.h) are missing; install your system's SQLite development package" >&2
    exit 1
  fi
fi

# GTK 4 (docs/gtk.md): GTK's headers for the CGtk system library; Xvfb, xdotool and a D-Bus session
# for the demo and the GUI tests; Debian's GTK 4 demo programs the tests track; python3 for the demo.
GTK_PACKAGES=()
pkg-config --exists gtk4 2>/dev/null || GTK_PACKAGES+=(libgtk-4-dev pkg-config)
command -v Xvfb >/dev/null 2>&1 || GTK_PACKAGES+=(xvfb)
command -v xdotool >/dev/null 2>&1 || GTK_PACKAGES+=(xdotool)
command -v dbus-run-session >/dev/null 2>&1 || GTK_PACKAGES+=(dbus dbus-x11)
command -v gtk4-widget-factory >/dev/null 2>&1 || GTK_PACKAGES+=(gtk-4-examples)
command -v python3 >/dev/null 2>&1 || GTK_PACKAGES+=(python3)
if [ ${#GTK_PACKAGES[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing ${GTK_PACKAGES[*]} (GTK 4 tracking, its demo and tests)" >&2
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${GTK_PACKAGES[@]}" >/dev/null
  else
    echo "setup: missing for GTK 4 tracking: ${GTK_PACKAGES[*]}; install them with your system's package manager" >&2
    exit 1
  fi
fi

# Headless Chromium: the report's browser test opens the HTML report in it (docs/reports.md).
if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing chromium (the HTML report's browser test runs it headless)" >&2
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: chromium is missing; install it (the HTML report's browser test needs /usr/bin/chromium)" >&2
    exit 1
  fi
fi
