#pragma once

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <vector>

#include "train/train_observer.h"

// One training step: which step it is, one bar for the global batch divided
// into a segment per device (its index and shard size), then a timeline row
// per device (label, stacked phases on a shared time axis, total ms), the
// axis in ms, and a legend with each phase's mean time over the devices.
// DataParallel's steps add two phases of their own, coloured and named in the
// legend: the output gather to device 0 and the parameter broadcast from it.
//
// It shows full-size steps: an epoch's last, smaller batch is shown only
// until the run has had a full one, and is then said to be partial. Rows keep
// their label and time at any font: the widget asks for the height its
// devices need (presenter mode enlarges the font).
class BatchSplitView : public QWidget {
    Q_OBJECT

public:
    explicit BatchSplitView(QWidget* parent = nullptr);

    // The shard sizes of the step shown, in device order; empty before one.
    const std::vector<int>& lastShards() const { return shards_; }
    // Whether the step shown holds fewer samples than the run's batch size.
    bool showsPartialBatch() const;
    // Whether every device row has room for its label and time at this size.
    bool labelsEveryRow() const;
    // The phases the key names, in the order a step runs them: DataParallel's
    // output gather and parameter broadcast only when the step has them.
    QStringList keyPhases() const;
    // The colour a phase is drawn in; invalid for an unknown name.
    static QColor phaseColor(const QString& name);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    // With comfortable rows and the legend's lines at `width`.
    int heightForWidth(int width) const override;

public slots:
    // Back to the empty state for a new run of global batch `batchSize` on
    // `deviceCount` devices (the height is planned for them).
    void startRun(int batchSize, int deviceCount);
    void showStep(const dp::StepReport& report);

protected:
    void paintEvent(QPaintEvent* event) override;
    // The height follows the font (presenter mode enlarges it).
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    int shownBatch() const;
    int rowCount() const;
    // The widget's height at `width` with timeline rows `rowHeight` tall.
    int heightWithRows(int rowHeight, int width) const;
    int legendHeight(int width) const;
    // The rows share what the widget's height leaves them, up to a little
    // over comfortable; below the minimum only every few rows keep a label.
    int timelineRowHeight() const;
    int labelColumnWidth() const;
    QString title() const;
    void paintBatchBar(QPainter& painter, const QRect& bar, int labelWidth) const;
    // The rows, each `rowHeight` tall from the top of `area`, and the time axis
    // below them; returns the bottom of the axis.
    int paintTimeline(QPainter& painter, const QRect& area, int rowHeight, int labelWidth) const;
    // Returns the legend's height at `width`, painting it when `painter` is given.
    int paintLegend(QPainter* painter, const QRect& area, int labelWidth) const;

    int batchSize_ = 0;       // the run's setting; 0: unknown, every step counts as full
    int plannedDevices_ = 2;  // rows planned for before the first step
    bool sawFullStep_ = false;
    dp::StepReport report_;
    std::vector<int> shards_;
};
