#include "widget_image_export.h"

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

namespace {

// Paints `widget` laid out at `size`, then gives it its size back.
template <typename Paint>
bool paintAtSize(QWidget& widget, QSize size, Paint paint)
{
    const QSize onScreen = widget.size();
    widget.resize(size);
    // Layouts (a chart's included) follow the new size before it is painted,
    // not at the next turn of the event loop.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const bool painted = paint();
    widget.resize(onScreen);
    return painted;
}

bool writePng(QWidget& widget, const QString& path)
{
    QImage image(kExportPictureSize * kExportPixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(kExportPixelRatio);
    image.fill(Qt::white);
    paintAtSize(widget, kExportPictureSize, [&] {
        widget.render(&image);
        return true;
    });
    return image.save(path, "PNG");
}

bool writeSvg(QWidget& widget, const QString& path, const QString& title)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setTitle(title);
    generator.setSize(kExportPictureSize);
    generator.setResolution(96);  // CSS pixels: other programs open it at its size
    generator.setViewBox(QRect(QPoint(0, 0), kExportPictureSize));
    return paintAtSize(widget, kExportPictureSize, [&] {
        QPainter painter;
        if (!painter.begin(&generator))
            return false;
        widget.render(&painter);
        return painter.end();
    });
}

}  // namespace

QString exportWidget(QWidget& widget, const QDir& folder, const QString& name)
{
    const QString png = folder.filePath(name + QStringLiteral(".png"));
    if (!writePng(widget, png))
        return png;
    const QString svg = folder.filePath(name + QStringLiteral(".svg"));
    if (!writeSvg(widget, svg, name))
        return svg;
    return {};
}
