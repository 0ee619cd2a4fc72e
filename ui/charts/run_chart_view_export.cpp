#include "run_chart_view.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "chart_axis.h"
#include "chart_readout.h"

// RunChartView's pictures for File ▸ Export: the chart laid out again at the
// export's size and fonts, drawn as PNG or SVG, then given back its screen
// layout (apart from drawing the lines, run_chart_view.cpp).

template <typename Render>
void RunChartView::renderExport(QSize size, Render render)
{
    QChart* exported = chart();
    const QSizeF onScreen = exported->size();
    const double screenFontScale = fontScale_;
    readout_->hide();
    fontScale_ = 1;
    applyFonts();
    updateLegend(true);
    xAxis_->setTitleVisible(true);  // a picture has no "x:" switch above it
    exported->resize(size);
    layOutHeader(size.width());
    updateTickCounts(size);
    // Laid out again once the export's ticks are set: Qt places (and hides
    // out-of-range) axis labels when it lays the chart out, and a layout done
    // before the ticks changed can leave a label where none belongs.
    exported->layout()->invalidate();
    exported->layout()->activate();
    placeTitle();
    placeKey();
    exportedPlotArea_ = exported->plotArea();
    render(QRectF(exported->pos(), QSizeF(size)));

    exported->resize(onScreen);
    layOutHeader(onScreen.width());
    exported->layout()->invalidate();
    showXTitleIfRoom();
    updateLegend(false);
    fontScale_ = screenFontScale;
    applyFonts();
}

QImage RunChartView::exportImage(QSize size, double pixelRatio)
{
    QImage image(size * pixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(pixelRatio);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing
                           | QPainter::SmoothPixmapTransform);
    renderExport(size, [&](const QRectF& source) {
        scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
    });
    return image;
}

bool RunChartView::exportSvg(const QString& path, QSize size, const QString& title)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setTitle(title);
    generator.setSize(size);
    generator.setResolution(96);  // CSS pixels: other programs open it at `size`
    generator.setViewBox(QRect(QPoint(0, 0), size));
    QPainter painter;
    if (!painter.begin(&generator))
        return false;
    painter.setRenderHint(QPainter::Antialiasing);
    renderExport(size, [&](const QRectF& source) {
        scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
    });
    return painter.end();
}
