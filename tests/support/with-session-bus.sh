#!/bin/sh
# Runs a test inside its own D-Bus session bus (dbus-run-session), so that it can own names such
# as a fake org.freedesktop.portal.Desktop without touching the user's session. Where
# dbus-run-session is missing the test is skipped (exit 77), except under CI=true, where it must run.
set -eu
if ! command -v dbus-run-session >/dev/null; then
    echo "with-session-bus: dbus-run-session is not installed" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    exit 77
fi
exec dbus-run-session -- "$@"
