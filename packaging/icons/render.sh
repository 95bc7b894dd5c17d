#!/bin/sh
# Renders the hicolor PNGs from the scalable icon (rsvg-convert, Debian's librsvg2-bin). The PNGs
# are committed, so building Paddock needs no SVG renderer; run this after changing the SVG.
set -eu
cd "$(dirname "$0")/hicolor"
id=io.github.paddock_console.Paddock
for size in 16 22 24 32 48 64 128 256; do
    mkdir -p "${size}x${size}/apps"
    rsvg-convert --width "$size" --height "$size" "scalable/apps/$id.svg" --output "${size}x${size}/apps/$id.png"
done
