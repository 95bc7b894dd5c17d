#!/bin/sh
# Runs a test inside its own D-Bus session with an unlocked GNOME Keyring (the Secret Service),
# as QtKeychain uses it on Linux. Where dbus-run-session or gnome-keyring-daemon is missing the
# test is skipped (exit 77), except under CI=true, where it must run.
set -eu
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
    echo "with-keyring: dbus-run-session or gnome-keyring-daemon is not installed" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    exit 77
fi
export PADDOCK_KEYRING_HOME="$(mktemp -d)"
trap 'rm -rf "$PADDOCK_KEYRING_HOME"' EXIT
# The keyring lives in a fresh home, so the test never sees or touches the user's own keys.
exec env HOME="$PADDOCK_KEYRING_HOME" XDG_DATA_HOME="$PADDOCK_KEYRING_HOME/data" \
    dbus-run-session -- sh -c '
        printf %s "paddock-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
        exec "$@"' keyring "$@"
