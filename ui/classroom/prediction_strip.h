#pragma once

#include <QImage>
#include <QStringList>
#include <QWidget>

#include <vector>

#include "train/train_observer.h"

// A row of test images after the latest epoch, each captioned with the
// model's prediction, green when it matches the true label and red with the
// true label below it when it does not: d2l's show_images, live. Captions
// stay within their image's cell, elided when longer, and an image whose
// caption would not fit below it is left out rather than cut.
class PredictionStrip : public QWidget {
    Q_OBJECT

public:
    explicit PredictionStrip(QWidget* parent = nullptr);

    // The names of the data set's classes; labels beyond them show as numbers.
    void setClassNames(const QStringList& names);
    int shownCount() const { return int(tiles_.size()); }
    int correctCount() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void showPredictions(const dp::PredictionSamples& samples);
    void clear();

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Tile {
        QImage image;
        int predicted = 0, label = 0;
    };
    // Images in `columns` per row, each `side` pixels square, centred in a
    // cell `cellWidth` wide (at least the image, more for a long caption).
    struct Grid {
        int columns = 1, side = 0, cellWidth = 0;
    };
    Grid layOut(const QRect& area) const;
    int captionHeight() const;  // the prediction and, when wrong, the true label
    QString className(int label) const;
    QString trueLabelText(const Tile& tile) const;

    QStringList classNames_;
    std::vector<Tile> tiles_;
    int epoch_ = 0;
};
