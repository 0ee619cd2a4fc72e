#include "chart_navigator.h"

#include <QChart>
#include <QChartView>
#include <QMouseEvent>
#include <QRubberBand>
#include <QWheelEvent>

#include <cmath>

#include "chart_axis.h"

namespace {

// A drag shorter than this (pixels) is a click, not a zoom.
constexpr int kMinZoomDrag = 5;
// Wheel zoom per notch (120 units): a sixth closer.
constexpr double kWheelZoomPerNotch = 0.85;

}  // namespace

ChartNavigator::ChartNavigator(QChartView* view, ChartAxis* xAxis, ChartAxis* yAxis)
    : QObject(view),
      view_(view),
      xAxis_(xAxis),
      yAxis_(yAxis),
      rubberBand_(new QRubberBand(QRubberBand::Rectangle, view->viewport()))
{
    rubberBand_->hide();
    view->viewport()->installEventFilter(this);
}

bool ChartNavigator::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != view_->viewport())
        return false;
    switch (event->type()) {
    case QEvent::MouseButtonPress:
        return press(static_cast<QMouseEvent&>(*event));
    case QEvent::MouseMove:
        return move(static_cast<QMouseEvent&>(*event));
    case QEvent::MouseButtonRelease:
        return release();
    case QEvent::MouseButtonDblClick:
        if (static_cast<QMouseEvent*>(event)->button() != Qt::LeftButton)
            return false;
        emit resetRequested();
        return true;
    case QEvent::Wheel:
        return wheel(static_cast<QWheelEvent&>(*event));
    default:
        return false;
    }
}

QRectF ChartNavigator::plotArea() const
{
    const QChart* chart = view_->chart();
    return view_->mapFromScene(chart->mapRectToScene(chart->plotArea())).boundingRect();
}

QPointF ChartNavigator::positionAt(QPointF viewPos) const
{
    const QRectF area = plotArea();
    return {xAxis_->min() + (viewPos.x() - area.left()) / area.width() * (xAxis_->max() - xAxis_->min()),
            yAxis_->max() - (viewPos.y() - area.top()) / area.height() * (yAxis_->max() - yAxis_->min())};
}

void ChartNavigator::show(double xMin, double xMax, double yMin, double yMax)
{
    xAxis_->showPositions(xMin, xMax);
    yAxis_->showPositions(yMin, yMax);
    emit navigated();
}

bool ChartNavigator::press(const QMouseEvent& event)
{
    const QPoint at = event.position().toPoint();
    if (!plotArea().contains(at))
        return false;
    if (event.button() == Qt::RightButton || event.button() == Qt::MiddleButton
        || (event.button() == Qt::LeftButton && event.modifiers().testFlag(Qt::ShiftModifier))) {
        drag_ = Drag::pan;
        view_->setCursor(Qt::ClosedHandCursor);
    } else if (event.button() == Qt::LeftButton) {
        drag_ = Drag::zoom;
        rubberBand_->setGeometry(QRect(at, QSize()));
        rubberBand_->show();
    } else {
        return false;
    }
    dragOrigin_ = dragLast_ = at;
    return true;
}

bool ChartNavigator::move(const QMouseEvent& event)
{
    const QPoint at = event.position().toPoint();
    switch (drag_) {
    case Drag::none:
        return false;  // a hover: the view's
    case Drag::zoom:
        rubberBand_->setGeometry(QRect(dragOrigin_, at).normalized().intersected(plotArea().toRect()));
        return true;
    case Drag::pan: {
        const QPointF shift = positionAt(dragLast_) - positionAt(at);
        show(xAxis_->min() + shift.x(), xAxis_->max() + shift.x(), yAxis_->min() + shift.y(),
             yAxis_->max() + shift.y());
        dragLast_ = at;
        return true;
    }
    }
    return false;
}

bool ChartNavigator::release()
{
    switch (drag_) {
    case Drag::none:
        return false;
    case Drag::zoom: {
        rubberBand_->hide();
        const QRect band = rubberBand_->geometry();
        if (band.width() >= kMinZoomDrag && band.height() >= kMinZoomDrag) {
            const QPointF topLeft = positionAt(band.topLeft());
            const QPointF bottomRight = positionAt(band.bottomRight());
            show(topLeft.x(), bottomRight.x(), bottomRight.y(), topLeft.y());
        }
        break;
    }
    case Drag::pan:
        view_->unsetCursor();
        break;
    }
    drag_ = Drag::none;
    return true;
}

bool ChartNavigator::wheel(const QWheelEvent& event)
{
    // Ctrl+wheel zooms; the wheel alone scrolls the page, as everywhere else
    // (a page of charts that zoomed under a scrolling wheel lost its axes).
    const QPointF at = event.position();
    if (!(event.modifiers() & Qt::ControlModifier) || !plotArea().contains(at))
        return false;
    // Around the point under the mouse, which stays where it is.
    const double factor = std::pow(kWheelZoomPerNotch, event.angleDelta().y() / 120.0);
    const QPointF centre = positionAt(at);
    show(centre.x() + (xAxis_->min() - centre.x()) * factor,
         centre.x() + (xAxis_->max() - centre.x()) * factor,
         centre.y() + (yAxis_->min() - centre.y()) * factor,
         centre.y() + (yAxis_->max() - centre.y()) * factor);
    return true;
}
