#pragma once

#include <QWidget>

#include "record/run_record.h"

class BatchSplitView;
class PredictionStrip;
class QPushButton;
class QStackedWidget;
class RingAllReduceView;
class QBoxLayout;
class QComboBox;
class QLabel;
class RunsTableModel;

// The Classroom tab: which run it shows (picked among the checked runs,
// newest first: the run in progress live, the others from the step timings
// their records keep), then one training step of it (the
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

    // The checked runs of `runs` become the picker's choices, kept up to date.
    void followRuns(const RunsTableModel* runs);
    QComboBox* runPicker() const { return runPicker_; }
    // Shows run `id` (a checked run of followRuns' model): live if it is the
    // run in progress, else its saved mean step.
    void showRun(const std::string& id);

    // Empties the views for `record`'s run, named with its colour on the
    // charts, and shows its steps live.
    void startRun(const dp::RunRecord& record, const QColor& color);

public slots:
    // The run in progress's step and predictions: shown while it is picked.
    void showLiveStep(const dp::StepReport& report);
    void showLivePredictions(const dp::PredictionSamples& samples);

protected:
    // Re-arranges when the page's size or the views' preferred sizes change.
    bool event(QEvent* event) override;

private:
    void arrangeSections();
    // Refills the picker from the checked runs, keeping the run shown.
    void refreshPicker();
    void showHeading(const QString& label, const QColor& color, const QString& note = {});

    QLabel* runHeading_;
    QComboBox* runPicker_;
    QBoxLayout* headingRow_;  // the heading, and the picker at its right
    const RunsTableModel* runs_ = nullptr;
    std::string liveRunId_;   // the run in progress (or last started this session)
    std::string shownRunId_;
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
