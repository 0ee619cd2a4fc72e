#include "vertical_scroll_area.h"

#include <QEvent>
#include <QScrollBar>
#include <QStyle>

#include <algorithm>

VerticalScrollArea::VerticalScrollArea(QWidget* content, QWidget* parent) : QScrollArea(parent)
{
    setWidget(content);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

QSize VerticalScrollArea::minimumSizeHint() const
{
    QSize least = QScrollArea::minimumSizeHint();
    if (widget()) {
        const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, verticalScrollBar());
        least.setWidth(std::max(least.width(), widget()->minimumSizeHint().width() + bar + 2 * frameWidth()));
    }
    return least;
}

bool VerticalScrollArea::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::LayoutRequest)
        updateGeometry();
    return QScrollArea::viewportEvent(event);
}
