#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QStringList>

#include <vector>

// The hover readout of a chart, as TensorBoard's: a vertical guide line at
// the mouse's x, a ring round each line's point nearest that x, and a box
// beside the guide listing the points (what x, then each line's run and
// value in its colour), kept inside the plot.
class ChartReadout : public QGraphicsItem {
public:
    struct Entry {
        QPointF at;  // the point, in scene coordinates
        QColor color;
        QString name;   // the run's; elided at the end where the plot is narrower than the box
        QString value;  // "test acc 0.61", never elided
    };

    explicit ChartReadout(QGraphicsItem* parent = nullptr);

    // The guide at scene x `guideX` across `plot` (scene coordinates), the box
    // `header` then `entries` in their order, beside the guide at about `mouseY`.
    void show(double guideX, double mouseY, const QRectF& plot, const QString& header,
              std::vector<Entry> entries);
    void setFont(const QFont& font);
    // The header and the entries ("name: value"), one a line, whole; empty while hidden.
    QString text() const;
    // The box of text, in scene coordinates.
    QRectF box() const { return box_; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    // An entry's line as drawn, its name elided to the plot's width.
    QString shownLine(const Entry& entry) const;
    QSizeF boxSize() const;
    QFont boldFont() const;

    QFont font_;
    QString header_;
    std::vector<Entry> entries_;
    QRectF plot_;
    double guideX_ = 0;
    QRectF box_;  // in scene coordinates
};
