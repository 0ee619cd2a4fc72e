#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QStringList>

// The hover readout of a chart: a ring round the point under the mouse and a
// box beside it with what the point is (run, x, value), kept inside the plot.
class ChartReadout : public QGraphicsItem {
public:
    explicit ChartReadout(QGraphicsItem* parent = nullptr);

    // Points at `anchor` (scene coordinates) in `color`, with `lines` of text
    // (the first bold), the box on whichever side of the point fits `bounds`.
    void point(QPointF anchor, const QColor& color, const QStringList& lines, const QRectF& bounds);
    void setFont(const QFont& font);
    // The lines shown, one per line of text; empty while hidden.
    QString text() const;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QRectF boxRect() const;  // in item coordinates, the anchor at (0, 0)

    QFont font_;
    QColor color_;
    QStringList lines_;
    QPointF boxOffset_;
};
