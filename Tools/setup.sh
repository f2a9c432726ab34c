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
# Headless Chromium: the report's browser test opens the HTML report in it (docs/reports.md).
if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing chromium (the HTML report's browser test runs it headless)" >&2
    $SUDO apt-get update -qq >/dev/null
    $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: chromium is missing; install it (the HTML report's browser test needs /usr/bin/chromium)" >&2
    exit 1
  fi
fi
