#pragma once

#include <QObject>
#include <QPoint>
#include <QPointF>

class ChartAxis;
class QChartView;
class QMouseEvent;
class QRubberBand;
class QWheelEvent;

// Zoom and pan on a chart as in TensorBoard and MATLAB's figures: drag a
// rectangle to zoom to it, turn the wheel with Ctrl held to zoom around the mouse (the wheel alone scrolls), drag with
// the right or middle button (or Shift) to pan, double-click to ask for
// everything again. It watches the view's viewport and moves the axes; the
// view decides what "everything" is.
class ChartNavigator : public QObject {
    Q_OBJECT

public:
    ChartNavigator(QChartView* view, ChartAxis* xAxis, ChartAxis* yAxis);

signals:
    // The user zoomed or panned: the axes show another range.
    void navigated();
    void resetRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool press(const QMouseEvent& event);
    bool move(const QMouseEvent& event);
    bool release();
    bool wheel(const QWheelEvent& event);
    // The plot area in viewport coordinates.
    QRectF plotArea() const;
    // The plotted position (x, y on the axes' scales) under a viewport point.
    QPointF positionAt(QPointF viewPos) const;
    void show(double xMin, double xMax, double yMin, double yMax);

    QChartView* view_;
    ChartAxis* xAxis_;
    ChartAxis* yAxis_;
    QRubberBand* rubberBand_;
    enum class Drag { none, zoom, pan } drag_ = Drag::none;
    QPoint dragOrigin_;
    QPoint dragLast_;
};
