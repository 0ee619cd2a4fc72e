#pragma once

#include <QString>

#include "train/build_info.h"

class QMainWindow;

// The Help menu: Keyboard shortcuts, and a Glossary of the words the charts
// and the comparison card use.
void addHelpMenu(QMainWindow* window);
// Its last entry, About: the build (version, commit, backends, MPI, as
// dp-train --version says them) and this machine's devices. The program
// adds it with dp::build_info(), which only the programs link (the commit
// changes at every commit; the tests that link the ui library do not
// relink for it).
void addAboutAction(QMainWindow* window, const dp::BuildInfo& build);

// The texts the menu's dialogs show (HTML), for tests.
QString aboutText(const dp::BuildInfo& build);
QString shortcutsText();
QString glossaryText();
