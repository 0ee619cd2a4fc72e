#include "chart_key.h"

#include <QFontMetricsF>
#include <QPainter>

namespace {

constexpr double kPadding = 5;
constexpr double kSampleLength = 24;  // the line sample before each name
constexpr double kSpacing = 5;        // between a sample and its name
constexpr double kEntryGap = 14;      // between entries
constexpr double kInset = 6;          // from the plot's edges

}  // namespace

ChartKey::ChartKey(QGraphicsItem* parent) : QGraphicsItem(parent)
{
    setZValue(500);  // above the lines, below the hover readout
    hide();          // until it has entries
}

void ChartKey::setEntries(std::vector<Entry> entries)
{
    prepareGeometryChange();
    entries_ = std::move(entries);
    setVisible(!entries_.empty());
}

void ChartKey::setFont(const QFont& font)
{
    prepareGeometryChange();
    font_ = font;
}

QStringList ChartKey::names() const
{
    QStringList names;
    for (const Entry& entry : entries_)
        names.append(entry.name);
    return names;
}

QRectF ChartKey::boundingRect() const
{
    const QFontMetricsF metrics(font_);
    double width = 0;
    for (const Entry& entry : entries_)
        width += kSampleLength + kSpacing + metrics.horizontalAdvance(entry.name) + kEntryGap;
    if (!entries_.empty())
        width -= kEntryGap;
    return QRectF(0, 0, width + 2 * kPadding, metrics.height() + 2 * kPadding);
}

void ChartKey::place(const QRectF& plotArea, Qt::Corner corner)
{
    const QRectF box = boundingRect();
    const QRectF area = plotArea.adjusted(kInset, kInset, -kInset, -kInset);
    const bool left = corner == Qt::TopLeftCorner || corner == Qt::BottomLeftCorner;
    const bool top = corner == Qt::TopLeftCorner || corner == Qt::TopRightCorner;
    setPos(left ? area.left() : area.right() - box.width(),
           top ? area.top() : area.bottom() - box.height());
}

void ChartKey::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(QColor(0xd0, 0xd0, 0xd0), 1));
    painter->setBrush(QColor(255, 255, 255, 225));
    painter->drawRoundedRect(boundingRect().adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
    const QFontMetricsF metrics(font_);
    painter->setFont(font_);
    double x = kPadding;
    const double middle = kPadding + metrics.height() / 2;
    for (const Entry& entry : entries_) {
        painter->setPen(entry.pen);
        painter->drawLine(QPointF(x, middle), QPointF(x + kSampleLength, middle));
        x += kSampleLength + kSpacing;
        painter->setPen(Qt::black);
        painter->drawText(QPointF(x, kPadding + metrics.ascent()), entry.name);
        x += metrics.horizontalAdvance(entry.name) + kEntryGap;
    }
}
