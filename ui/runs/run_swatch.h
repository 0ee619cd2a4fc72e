#pragma once

#include <QColor>
#include <QIcon>

// The square in a run's Run cell, in the run's chart colour. A past run's
// (from the history of an earlier session, or imported) carries a small
// clock face, so it reads as past without greying its text.
QIcon runSwatch(const QColor& color, bool past);
