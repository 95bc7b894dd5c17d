#!/bin/sh
# Renders the console's fallback action icons (actions/*.svg, drawn for this project) to PNGs at
# 16, 24, 32 and 48 pixels, committed under actions/<size>/. Run again after changing an SVG.
# PNGs because Debian 12's Qt has no SVG image plugin unless libqt6svg6 is installed, and the
# console must not need it. Needs ImageMagick's convert.
set -eu
cd "$(dirname "$0")/actions"
for size in 16 24 32 48; do
    mkdir -p "$size"
    for svg in *.svg; do
        # Rendered large and scaled down, for smooth edges at every size.
        convert -background none -density $((96 * 16)) "$svg" -resize "${size}x${size}" \
            -depth 8 -define png:exclude-chunks=date,time -strip "$size/${svg%.svg}.png"
    done
done
