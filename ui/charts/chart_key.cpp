#include "chart_key.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace {

constexpr double kPadding = 2;
constexpr double kSampleLength = 24;  // the line sample before each name
constexpr double kSpacing = 5;        // between a sample and its name
constexpr double kEntryGap = 14;      // between entries

}  // namespace

ChartKey::ChartKey(QGraphicsItem* parent) : QGraphicsItem(parent)
{
    setZValue(500);  // below the hover readout
    hide();          // until it has entries
}

void ChartKey::setEntries(std::vector<Entry> entries)
{
    prepareGeometryChange();
    entries_ = std::move(entries);
    setVisible(!entries_.empty());
    fit();
}

void ChartKey::setFont(const QFont& font)
{
    prepareGeometryChange();
    font_ = font;
    fit();
}

void ChartKey::setMaxWidth(double width)
{
    prepareGeometryChange();
    maxWidth_ = width;
    fit();
}

QStringList ChartKey::names() const
{
    QStringList names;
    for (const Entry& entry : entries_)
        names.append(entry.name);
    return names;
}

QStringList ChartKey::shownNames() const
{
    return shownNames_;
}

double ChartKey::widthOf(const QStringList& names) const
{
    const QFontMetricsF metrics(font_);
    double width = 2 * kPadding;
    for (const QString& name : names)
        width += kSampleLength + kSpacing + metrics.horizontalAdvance(name) + kEntryGap;
    return names.isEmpty() ? width : width - kEntryGap;
}

double ChartKey::fullWidth() const
{
    return widthOf(names());
}

void ChartKey::fit()
{
    shownNames_ = names();
    const double excess = widthOf(shownNames_) - maxWidth_;
    if (excess > 0 && !shownNames_.isEmpty()) {
        // Each name gives up an equal share of what does not fit.
        const QFontMetricsF metrics(font_);
        const double share = excess / double(shownNames_.size());
        for (QString& name : shownNames_)
            name = metrics.elidedText(name, Qt::ElideRight, std::max(0.0, metrics.horizontalAdvance(name) - share));
    }
    setToolTip(shownNames_ == names() ? QString() : names().join(QStringLiteral(" · ")));
}

QRectF ChartKey::boundingRect() const
{
    return QRectF(0, 0, widthOf(shownNames_), QFontMetricsF(font_).height() + 2 * kPadding);
}

void ChartKey::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF metrics(font_);
    painter->setFont(font_);
    double x = kPadding;
    const double middle = kPadding + metrics.height() / 2;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const QString& name = shownNames_[qsizetype(i)];
        painter->setPen(entries_[i].pen);
        painter->drawLine(QPointF(x, middle), QPointF(x + kSampleLength, middle));
        x += kSampleLength + kSpacing;
        painter->setPen(Qt::black);
        painter->drawText(QPointF(x, kPadding + metrics.ascent()), name);
        x += metrics.horizontalAdvance(name) + kEntryGap;
    }
}
