#pragma once

#include <QImage>
#include <QStringList>
#include <QWidget>

#include <vector>

#include "train/train_observer.h"

// A row of test images after the latest epoch, each captioned with the
// model's prediction, green when it matches the true label and red with the
// true label beside it when it does not: d2l's show_images, live.
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
    QString className(int label) const;

    QStringList classNames_;
    std::vector<Tile> tiles_;
    int epoch_ = 0;
};
