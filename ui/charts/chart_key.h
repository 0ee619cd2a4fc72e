#pragma once

#include <QFont>
#include <QGraphicsItem>
#include <QPen>

#include <vector>

// What a chart's line styles mean ("── test acc  ‒ ‒ train acc"), in a row
// above the plot (its chart places it) rather than over the data. Where the
// row is narrower than the key, the names are elided at the end and the key's
// tooltip gives them whole. The runs' colours are the board legend's.
class ChartKey : public QGraphicsItem {
public:
    struct Entry {
        QString name;
        QPen pen;
    };

    explicit ChartKey(QGraphicsItem* parent = nullptr);

    void setEntries(std::vector<Entry> entries);
    void setFont(const QFont& font);
    // The most the key may take across; its names are elided to fit.
    void setMaxWidth(double width);
    // Its width with every name whole.
    double fullWidth() const;
    QStringList names() const;
    // As drawn: elided where the key is narrower than fullWidth().
    QStringList shownNames() const;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    // Elides the shown names to maxWidth_.
    void fit();
    double widthOf(const QStringList& names) const;

    std::vector<Entry> entries_;
    QStringList shownNames_;
    QFont font_;
    double maxWidth_ = 1e9;
};
