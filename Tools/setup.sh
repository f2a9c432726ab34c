#!/usr/bin/env bash
# Makes sure this machine can build Autotrack: the Swift toolchain, and the headers of the system
# libraries the package links (SQLite for CSQLite, OpenSSL for ATLPTLS). Installs them with apt-get when it can.
set -euo pipefail
if ! command -v swift >/dev/null 2>&1; then
  echo "setup: no 'swift' on PATH; install the Swift 6 toolchain (https://www.swift.org/install/)" >&2
  exit 1
fi
# Installs Debian packages with apt-get (sudo when not root): install_packages WHY PACKAGE...
install_packages() {
  local why="$1"
  shift
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: $why: install $* (or your system's equivalent)" >&2
    exit 1
  fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing $* ($why)" >&2
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq "$@" >/dev/null
}
if [ ! -f /usr/include/sqlite3.h ] || ! command -v sqlite3 >/dev/null 2>&1; then
  install_packages "SQLite headers for CSQLite; the shell the tests query with" libsqlite3-dev sqlite3
fi
# OpenSSL for the ATLPTLS module (headers: libssl-dev) and the openssl command the TLS tests
# make their certificates with.
if [ ! -f /usr/include/openssl/ssl.h ] || ! command -v openssl >/dev/null 2>&1; then
  install_packages "TLS for ATLPTLS; certificates for its tests" libssl-dev openssl
fi
# PostgreSQL: libpq's headers for the CLibPQ system library (PostgresStore), and the server the
# PostgreSQL tests start in a temporary directory (initdb, pg_ctl; Debian's postgresql package).
if [ ! -f /usr/include/postgresql/libpq-fe.h ] || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing libpq-dev and postgresql (headers for CLibPQ; the server the PostgreSQL tests run)" >&2
    $SUDO apt-get update -qq >/dev/null
    # The package's own cluster is not used; tests make theirs. policy-rc.d-less containers may
    # fail to start it, which is fine.
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpq-dev postgresql >/dev/null
  else
    echo "setup: libpq headers or PostgreSQL server binaries are missing; install your system's libpq development package and PostgreSQL server" >&2
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
