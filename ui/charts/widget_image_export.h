#pragma once

#include <QString>

class QWidget;

// Pictures of a widget as it is on screen (a chart, the batch split view):
// PNG at the screen's pixel density, SVG as vectors for slides and papers.
// Both return false when the file cannot be written.
bool writeWidgetPng(QWidget& widget, const QString& path);
bool writeWidgetSvg(QWidget& widget, const QString& path, const QString& title);
