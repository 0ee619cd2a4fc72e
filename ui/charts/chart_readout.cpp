#include "chart_readout.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace {

constexpr double kRingRadius = 6;
constexpr double kGap = 10;      // between the point and the box
constexpr double kPadding = 6;   // inside the box

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

QString ChartReadout::text() const
{
    return isVisible() ? lines_.join(QLatin1Char('\n')) : QString();
}

void ChartReadout::point(QPointF anchor, const QColor& color, const QStringList& lines,
                         const QRectF& bounds)
{
    prepareGeometryChange();
    color_ = color;
    lines_ = lines;
    setPos(anchor);
    // Above and to the right of the point; flipped to whichever side has room.
    boxOffset_ = {};
    const QRectF box = boxRect();
    double x = kGap;
    double y = -kGap - box.height();
    if (anchor.x() + x + box.width() > bounds.right())
        x = -kGap - box.width();
    if (anchor.y() + y < bounds.top())
        y = kGap;
    x = std::max(x, bounds.left() - anchor.x());
    boxOffset_ = {x, y};
    show();
    update();
}

QRectF ChartReadout::boxRect() const
{
    const QFontMetricsF metrics(font_);
    double width = 0;
    for (const QString& line : lines_) {
        QFont bold = font_;
        bold.setBold(true);
        width = std::max(width, QFontMetricsF(bold).horizontalAdvance(line));
    }
    const double height = metrics.lineSpacing() * lines_.size();
    return QRectF(boxOffset_, QSizeF(width + 2 * kPadding, height + 2 * kPadding));
}

QRectF ChartReadout::boundingRect() const
{
    const QRectF ring(-kRingRadius - 2, -kRingRadius - 2, 2 * kRingRadius + 4, 2 * kRingRadius + 4);
    return ring.united(boxRect().adjusted(-1, -1, 1, 1));
}

void ChartReadout::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(color_, 2));
    painter->setBrush(Qt::NoBrush);
    painter->drawEllipse(QPointF(0, 0), kRingRadius, kRingRadius);

    const QRectF box = boxRect();
    painter->setPen(QPen(color_, 1));
    painter->setBrush(QColor(255, 255, 255, 235));
    painter->drawRoundedRect(box, 4, 4);
    const QFontMetricsF metrics(font_);
    QPointF baseline = box.topLeft() + QPointF(kPadding, kPadding + metrics.ascent());
    painter->setPen(Qt::black);
    for (qsizetype i = 0; i < lines_.size(); ++i) {
        QFont font = font_;
        font.setBold(i == 0);  // the run's name
        painter->setFont(font);
        painter->drawText(baseline, lines_[i]);
        baseline.ry() += metrics.lineSpacing();
    }
}
