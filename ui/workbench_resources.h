#pragma once

#include <QIcon>

// resources/workbench.qrc (the icon, the data sets' metadata) is compiled
// into dp_ui, a static library: its files appear under ":/" only once a
// program has called this (Q_INIT_RESOURCE). Every reader in ui/ calls it;
// calling it again does nothing.
void registerWorkbenchResources();

// The application icon (resources/icons/dp-workbench.svg).
QIcon workbenchIcon();
