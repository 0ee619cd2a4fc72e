#include "widget_image_export.h"

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <QLayout>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

#include <algorithm>

namespace {

// Paints `widget` laid out at `size` (as tall as its content where its
// height follows its width, the step view's: centred, not stretched), on
// the picture's white rather than the window's grey; then gives it its size
// back.
bool paintAtSize(QWidget& widget, QPaintDevice& picture, QSize size)
{
    QSize laidOut = size;
    if (widget.hasHeightForWidth())
        laidOut.setHeight(std::min(size.height(), widget.heightForWidth(size.width())));
    const QSize onScreen = widget.size();
    // The layout the widget sits in would give it its size on screen back.
    QLayout* placing = widget.parentWidget() ? widget.parentWidget()->layout() : nullptr;
    const bool placingEnabled = placing && placing->isEnabled();
    if (placing)
        placing->setEnabled(false);
    widget.resize(laidOut);
    // Layouts (a chart's included) follow the new size before it is painted,
    // not at the next turn of the event loop.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QPainter painter;
    const bool painted = painter.begin(&picture);
    if (painted) {
        widget.render(&painter, QPoint(0, (size.height() - laidOut.height()) / 2), QRegion(),
                      QWidget::DrawChildren);
        painter.end();
    }
    widget.resize(onScreen);
    if (placing)
        placing->setEnabled(placingEnabled);
    return painted;
}

bool writePng(QWidget& widget, const QString& path)
{
    QImage image(kExportPictureSize * kExportPixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(kExportPixelRatio);
    image.fill(Qt::white);
    return paintAtSize(widget, image, kExportPictureSize) && image.save(path, "PNG");
}

bool writeSvg(QWidget& widget, const QString& path, const QString& title)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setTitle(title);
    generator.setSize(kExportPictureSize);
    generator.setResolution(96);  // CSS pixels: other programs open it at its size
    generator.setViewBox(QRect(QPoint(0, 0), kExportPictureSize));
    return paintAtSize(widget, generator, kExportPictureSize);
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
