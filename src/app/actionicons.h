#pragma once

#include <QIcon>

class QWidget;

// Icons for the console's actions: the desktop's icon theme first (freedesktop names), else the
// fallbacks embedded in the library (resources/icons/actions, mid-grey strokes with a coloured
// mark where the meaning is a colour, drawn to read on light and dark windows alike; PNGs at 16,
// 24, 32 and 48 pixels, since Qt needs an extra plugin for SVG).
namespace ActionIcons {
// The theme's icon named `name`, else the embedded one of that name (a null icon when there is
// neither).
QIcon icon(const QString &name);
// Every action under `root` whose object name is known (the menus' and toolbar's actions, the
// docks' toggles) gets its icon.
void applyTo(QWidget *root);
} // namespace ActionIcons
