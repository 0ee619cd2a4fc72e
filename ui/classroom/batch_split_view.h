#pragma once

#include <QWidget>

#include <vector>

#include "train/train_observer.h"

// How the current global batch is split across devices, and where each
// device spent the step: one bar for the batch, divided into a segment per
// device labelled with its index and shard size, then one thin stacked bar
// per device (data, forward, backward, all-reduce wait, update) and a legend.
class BatchSplitView : public QWidget {
    Q_OBJECT

public:
    explicit BatchSplitView(QWidget* parent = nullptr);

    // The shard sizes of the last step shown, in device order; empty before.
    const std::vector<int>& lastShards() const { return shards_; }

    QSize sizeHint() const override;

public slots:
    void showStep(const dp::StepReport& report);
    // Back to the empty state, for a new run.
    void clear();

protected:
    void paintEvent(QPaintEvent* event) override;
    // The height follows the font (presenter mode enlarges it).
    void changeEvent(QEvent* event) override;

private:
    void paintBatchBar(QPainter& painter, const QRect& bar, int labelWidth) const;
    void paintTimings(QPainter& painter, const QRect& area, int labelWidth) const;
    void paintLegend(QPainter& painter, const QRect& area, int labelWidth) const;

    dp::StepReport report_;
    std::vector<int> shards_;
};
