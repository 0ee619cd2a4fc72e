#pragma once

#include <QSize>
#include <QString>

class QDir;
class QWidget;

// Every exported picture's size, whatever the size on screen: 16:9 for
// slides, PNGs at twice the pixels (1600x900) so that they stay sharp there
// and on high-density screens, with text sized as on a normal screen.
inline constexpr QSize kExportPictureSize{800, 450};
inline constexpr double kExportPixelRatio = 2;

// A widget that is not a chart of the board (the classroom's step view, the
// Scaling chart) laid out at kExportPictureSize, as <name>.png and, as
// vectors for slides and papers, <name>.svg in `folder`; then put back at
// its size on screen. The path of the first file it could not write, or empty.
QString exportWidget(QWidget& widget, const QDir& folder, const QString& name);
