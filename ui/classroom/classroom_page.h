#pragma once

#include <QWidget>

#include "record/run_record.h"

class BatchSplitView;
class PredictionStrip;
class QPushButton;
class QStackedWidget;
class RingAllReduceView;
class QBoxLayout;
class QLabel;

// The Classroom tab: which run it shows, then one training step of it (the
// batch split and the devices' timeline) and its sample predictions, each
// under a caption that says how to read it. The two sit one above the other
// where the page is tall enough for both at their preferred heights, and side
// by side where it is not (a projector's 1280 x 720 in presenter mode, many
// devices), so that every device row keeps its label and time.
class ClassroomPage : public QWidget {
    Q_OBJECT

public:
    explicit ClassroomPage(QWidget* parent = nullptr);

    BatchSplitView* batchSplitView() const { return batchSplitView_; }
    PredictionStrip* predictionStrip() const { return predictionStrip_; }
    RingAllReduceView* ringAllReduceView() const { return ringView_; }
    // Shows the ring all-reduce in place of the step and predictions, or back.
    void showRingAllReduce(bool shown);
    // The run the views show, as the runs table labels it.
    QString runLabel() const { return runLabel_; }
    // Whether the step and the predictions are side by side.
    bool isSideBySide() const;

    // Empties the views for `record`'s run, named with its colour on the charts.
    void startRun(const dp::RunRecord& record, const QColor& color);

protected:
    // Re-arranges when the page's size or the views' preferred sizes change.
    bool event(QEvent* event) override;

private:
    void arrangeSections();

    QLabel* runHeading_;
    BatchSplitView* batchSplitView_;
    PredictionStrip* predictionStrip_;
    QWidget* stepSection_;
    QWidget* predictionSection_;
    QBoxLayout* sections_;
    QPushButton* ringButton_;
    RingAllReduceView* ringView_;
    QStackedWidget* views_;
    QString runLabel_;
};
