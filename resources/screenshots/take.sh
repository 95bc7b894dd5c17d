#!/bin/sh
# Takes the README's screenshots: the real console window under Xvfb, in English and in
# Simplified Chinese, light and dark (View > Appearance), over paddock-fake-opensandbox on
# 127.0.0.1 with seeded sandboxes.
# Needs Xvfb, imagemagick (import) and fonts-noto-cjk. Usage: take.sh [build dir]
set -eu
build=${1:-build/release}
out=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
display=${PADDOCK_SCREENSHOT_DISPLAY:-:93}

Xvfb "$display" -screen 0 1200x700x24 >/dev/null 2>&1 &
xvfb=$!
"$build/bin/paddock-fake-opensandbox" --seed 120 >"$tmp/server" 2>/dev/null &
server=$!
trap 'kill $server $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
until [ -s "$tmp/server" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
domain=$(head -n 1 "$tmp/server" | sed -e 's|^http://||' -e 's|/.*$||')

for shot in en zh_CN en-dark zh_CN-dark; do
    language=${shot%-dark}
    appearance=light
    [ "$shot" = "$language" ] || appearance=dark
    mkdir -p "$tmp/$shot/config/paddock" "$tmp/$shot/data"
    cat >"$tmp/$shot/config/paddock/paddock.conf" <<CONF
[General]
currentProfile=team
environmentImported=true
language=$language
appearance=$appearance

[profiles]
1\\id=team
1\\kind=opensandbox
1\\name=Team server
1\\domain=$domain
1\\protocol=http
1\\sandboxTimeout=1800
1\\isolation=per_agent
1\\ttl=3600
1\\sweepInterval=300
1\\refreshInterval=15
size=1
CONF
    # No session bus: the desktop's own preference is not asked, the setting decides.
    DISPLAY=$display XDG_CONFIG_HOME="$tmp/$shot/config" XDG_DATA_HOME="$tmp/$shot/data" \
        DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/paddock-no-bus "$build/bin/paddock" >/dev/null 2>&1 &
    app=$!
    sleep 4
    DISPLAY=$display import -window root -crop 1200x700+0+0 "$out/console-$shot.png"
    kill $app
    wait $app 2>/dev/null || true
done
echo "wrote $out/console-en.png, console-zh_CN.png, console-en-dark.png and console-zh_CN-dark.png"
