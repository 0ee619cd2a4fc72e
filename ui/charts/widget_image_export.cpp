#include "widget_image_export.h"

#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

bool writeWidgetPng(QWidget& widget, const QString& path)
{
    return widget.grab().save(path, "PNG");
}

bool writeWidgetSvg(QWidget& widget, const QString& path, const QString& title)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setTitle(title);
    generator.setSize(widget.size());
    generator.setViewBox(widget.rect());
    QPainter painter;
    if (!painter.begin(&generator))
        return false;
    widget.render(&painter);
    return painter.end();
}
