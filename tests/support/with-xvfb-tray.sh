#!/bin/sh
# Runs a test on a private X server with a real system tray: Xvfb on a display it picks itself,
# and trayer (Debian's trayer, an XEmbed system tray of the freedesktop System Tray Protocol)
# docked at the bottom right of the screen. The test runs with QT_QPA_PLATFORM=xcb on it and
# waits for the tray itself (QSystemTrayIcon::isSystemTrayAvailable() turns true once trayer
# owns _NET_SYSTEM_TRAY_S0). Where Xvfb or trayer is missing the test is skipped (exit 77),
# except under CI=true, where it must run. Usage: with-xvfb-tray.sh command...
set -eu
missing() {
    echo "with-xvfb-tray: $1 is not installed (Debian package $2): skipping the test" >&2
    if [ "${CI:-}" = true ]; then
        echo "with-xvfb-tray: CI=true requires it" >&2
        exit 1
    fi
    exit 77
}
command -v Xvfb >/dev/null || missing Xvfb xvfb
command -v trayer >/dev/null || missing trayer trayer

tmp=$(mktemp -d)
xvfb=
tray=
cleanup() {
    [ -z "$tray" ] || kill "$tray" 2>/dev/null || true
    [ -z "$xvfb" ] || kill "$xvfb" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Xvfb writes the display it chose on fd 3 once it accepts clients; read blocks until then.
mkfifo "$tmp/display"
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$tmp/display" 2>"$tmp/xvfb.log" &
xvfb=$!
read -r number <"$tmp/display" || { cat "$tmp/xvfb.log" >&2; exit 1; }
DISPLAY=:$number
export DISPLAY
trayer --edge bottom --align right --widthtype pixel --width 160 --height 32 --SetDockType true >"$tmp/trayer.log" 2>&1 &
tray=$!
status=0
QT_QPA_PLATFORM=xcb "$@" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    echo "with-xvfb-tray: trayer said:" >&2
    cat "$tmp/trayer.log" >&2
fi
exit "$status"
