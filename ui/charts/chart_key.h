#pragma once

#include <QFont>
#include <QGraphicsItem>
#include <QPen>

#include <vector>

// What a chart's line styles mean ("── test acc  ‒ ‒ train acc"), in a small
// box floating in a corner of the plot that the data leave empty, rather than
// a legend row taken from the plot. The runs' colours are the board legend's.
class ChartKey : public QGraphicsItem {
public:
    struct Entry {
        QString name;
        QPen pen;
    };

    explicit ChartKey(QGraphicsItem* parent = nullptr);

    void setEntries(std::vector<Entry> entries);
    void setFont(const QFont& font);
    // Puts the box in `corner` of `plotArea` (scene coordinates).
    void place(const QRectF& plotArea, Qt::Corner corner);
    QStringList names() const;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    std::vector<Entry> entries_;
    QFont font_;
};
