#include "chart_readout.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace {

constexpr double kRingRadius = 5;
constexpr double kGap = 10;      // between the guide and the box
constexpr double kPadding = 6;   // inside the box
constexpr double kSwatch = 8;    // the colour dot before each run's line
constexpr double kSwatchGap = 5;

}  // namespace

ChartReadout::ChartReadout(QGraphicsItem* parent) : QGraphicsItem(parent)
{
    setZValue(1000);  // above the lines
    hide();
}

void ChartReadout::setFont(const QFont& font)
{
    prepareGeometryChange();
    font_ = font;
}

QFont ChartReadout::boldFont() const
{
    QFont bold = font_;
    bold.setBold(true);
    return bold;
}

QString ChartReadout::text() const
{
    if (!isVisible())
        return {};
    QStringList lines{header_};
    for (const Entry& entry : entries_)
        lines.append(entry.name + QStringLiteral(": ") + entry.value);
    return lines.join(QLatin1Char('\n'));
}

QString ChartReadout::shownLine(const Entry& entry) const
{
    // The value is what the readout is for: the name gives way, at its end
    // (the start says which run, as the legend does).
    const QFontMetricsF metrics(font_);
    const QString tail = QStringLiteral(": ") + entry.value;
    const double room = plot_.width() - 2 * kPadding - kSwatch - kSwatchGap - metrics.horizontalAdvance(tail);
    return metrics.elidedText(entry.name, Qt::ElideRight, std::max(0.0, room)) + tail;
}

QSizeF ChartReadout::boxSize() const
{
    const QFontMetricsF metrics(font_);
    double width = QFontMetricsF(boldFont()).horizontalAdvance(header_);
    for (const Entry& entry : entries_)
        width = std::max(width, kSwatch + kSwatchGap + metrics.horizontalAdvance(shownLine(entry)));
    const double height = metrics.lineSpacing() * double(entries_.size() + 1);
    return {width + 2 * kPadding, height + 2 * kPadding};
}

void ChartReadout::show(double guideX, double mouseY, const QRectF& plot, const QString& header,
                        std::vector<Entry> entries)
{
    prepareGeometryChange();
    guideX_ = guideX;
    plot_ = plot;
    header_ = header;
    entries_ = std::move(entries);
    // Right of the guide, flipped left where the plot ends; level with the
    // mouse, within the plot.
    const QSizeF size = boxSize();
    double left = guideX + kGap;
    if (left + size.width() > plot.right())
        left = std::max(plot.left(), guideX - kGap - size.width());
    const double top = std::clamp(mouseY - size.height() / 2, plot.top(),
                                  std::max(plot.top(), plot.bottom() - size.height()));
    box_ = QRectF(QPointF(left, top), size);
    QGraphicsItem::show();
    update();
}

QRectF ChartReadout::boundingRect() const
{
    const double ring = kRingRadius + 2;
    QRectF bounds = box_.adjusted(-1, -1, 1, 1).united(QRectF(guideX_ - 1, plot_.top(), 2, plot_.height()));
    for (const Entry& entry : entries_)
        bounds = bounds.united(QRectF(entry.at - QPointF(ring, ring), QSizeF(2 * ring, 2 * ring)));
    return bounds;
}

void ChartReadout::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(QColor(0x80, 0x80, 0x80), 1, Qt::DashLine));
    painter->drawLine(QPointF(guideX_, plot_.top()), QPointF(guideX_, plot_.bottom()));
    painter->setBrush(Qt::NoBrush);
    for (const Entry& entry : entries_) {
        painter->setPen(QPen(entry.color, 2));
        painter->drawEllipse(entry.at, kRingRadius, kRingRadius);
    }

    painter->setPen(QPen(QColor(0xa0, 0xa0, 0xa0), 1));
    painter->setBrush(QColor(255, 255, 255, 235));
    painter->drawRoundedRect(box_, 4, 4);
    const QFontMetricsF metrics(font_);
    QPointF baseline = box_.topLeft() + QPointF(kPadding, kPadding + metrics.ascent());
    painter->setPen(Qt::black);
    painter->setFont(boldFont());
    painter->drawText(baseline, header_);
    painter->setFont(font_);
    for (const Entry& entry : entries_) {
        baseline.ry() += metrics.lineSpacing();
        const double middle = baseline.y() - metrics.ascent() + metrics.height() / 2;
        painter->setPen(Qt::NoPen);
        painter->setBrush(entry.color);
        painter->drawEllipse(QPointF(baseline.x() + kSwatch / 2, middle), kSwatch / 2, kSwatch / 2);
        // The run's colour, darkened where a light one would be hard to read on white.
        painter->setPen(entry.color.lightnessF() > 0.55 ? entry.color.darker(150) : entry.color);
        painter->drawText(baseline + QPointF(kSwatch + kSwatchGap, 0), shownLine(entry));
    }
}
