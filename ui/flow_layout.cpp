#include "flow_layout.h"

#include <QHBoxLayout>
#include <QStyle>
#include <QWidget>

#include <algorithm>

FlowLayout::FlowLayout(QWidget* parent) : QLayout(parent) {}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem* item = takeAt(0))
        delete item;
}

void FlowLayout::addGroup(std::initializer_list<QWidget*> widgets)
{
    auto* group = new QWidget;
    auto* row = new QHBoxLayout(group);
    row->setContentsMargins(0, 0, 0, 0);
    for (QWidget* widget : widgets)
        row->addWidget(widget);
    addWidget(group);
}

void FlowLayout::addItem(QLayoutItem* item)
{
    items_.append(item);
}

int FlowLayout::count() const
{
    return int(items_.size());
}

QLayoutItem* FlowLayout::itemAt(int index) const
{
    return items_.value(index);
}

QLayoutItem* FlowLayout::takeAt(int index)
{
    return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

Qt::Orientations FlowLayout::expandingDirections() const
{
    return {};
}

bool FlowLayout::hasHeightForWidth() const
{
    return true;
}

int FlowLayout::heightForWidth(int width) const
{
    return arrange(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const
{
    QSize least;
    for (const QLayoutItem* item : items_)
        if (!item->isEmpty())
            least = least.expandedTo(item->minimumSize().expandedTo(item->sizeHint()));
    const QMargins margins = contentsMargins();
    return least + QSize(margins.left() + margins.right(), margins.top() + margins.bottom());
}

QSize FlowLayout::sizeHint() const
{
    int width = 0, height = 0, shown = 0;
    for (const QLayoutItem* item : items_) {
        if (item->isEmpty())
            continue;
        width += item->sizeHint().width();
        height = std::max(height, item->sizeHint().height());
        ++shown;
    }
    width += std::max(0, shown - 1) * gap(QStyle::PM_LayoutHorizontalSpacing);
    const QMargins margins = contentsMargins();
    return {width + margins.left() + margins.right(), height + margins.top() + margins.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::gap(QStyle::PixelMetric metric) const
{
    if (spacing() >= 0)
        return spacing();
    const QWidget* owner = parentWidget();
    const int styled = owner ? owner->style()->pixelMetric(metric, nullptr, owner) : -1;
    return styled >= 0 ? styled : 6;
}

int FlowLayout::arrange(const QRect& rect, bool apply) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    const int gapX = gap(QStyle::PM_LayoutHorizontalSpacing);
    const int gapY = gap(QStyle::PM_LayoutVerticalSpacing);
    int y = area.y();
    QList<QLayoutItem*> line;
    int lineWidth = 0, lineHeight = 0;
    // Each line's items centred on its height, once the line is known.
    const auto endLine = [&] {
        if (apply) {
            int x = area.x();
            for (QLayoutItem* item : line) {
                const QSize hint = item->sizeHint();
                const int width = std::min(hint.width(), area.width());
                item->setGeometry(QRect(x, y + (lineHeight - hint.height()) / 2, width, hint.height()));
                x += width + gapX;
            }
        }
        y += lineHeight + gapY;
        line.clear();
        lineWidth = lineHeight = 0;
    };
    for (QLayoutItem* item : items_) {
        if (item->isEmpty())
            continue;
        const QSize hint = item->sizeHint();
        if (!line.isEmpty() && lineWidth + gapX + hint.width() > area.width())
            endLine();
        lineWidth += (line.isEmpty() ? 0 : gapX) + hint.width();
        lineHeight = std::max(lineHeight, hint.height());
        line.append(item);
    }
    if (!line.isEmpty())
        endLine();
    const int used = y - area.y() - (y > area.y() ? gapY : 0);
    const QMargins margins = contentsMargins();
    return used + margins.top() + margins.bottom();
}
