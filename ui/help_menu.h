#pragma once

#include <QString>

class QMainWindow;

// The Help menu: About (the build: version, commit, backends, MPI, and this
// machine's devices, as dp-train --version and --list-devices say them),
// Keyboard shortcuts, and a Glossary of the words the charts and the
// comparison card use.
void addHelpMenu(QMainWindow* window);

// The texts the menu's dialogs show (HTML), for tests.
QString aboutText();
QString shortcutsText();
QString glossaryText();
