#pragma once

#include <QDialog>

#include <vector>

#include "config/device_choice.h"
#include "config/train_config.h"
#include "study/study_plan.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

// Run ▸ Sweep…: a grid of device counts, batch sizes and learning rates,
// each a comma list, over the settings panel's run, and how often each point
// runs. Every edit is checked by the engine (add_sweep_axis, sweep_plan) on
// the panel's checked devices: the dialog says "N points × R repeats = M
// runs", or the engine's one-line error with OK disabled.
class SweepDialog : public QDialog {
    Q_OBJECT

public:
    // `base`: the panel's settings; `devices`: the devices it has checked
    // (a point of N devices runs on the first N).
    SweepDialog(const dp::TrainConfig& base, std::vector<dp::DeviceInfo> devices, QWidget* parent = nullptr);

    // Whether the grid can run; OK is enabled only then.
    bool isValid() const { return valid_; }
    // The run count, or why the grid cannot run.
    QString status() const;
    // The study the grid plans (meaningful while isValid()).
    const dp::StudyPlan& plan() const { return plan_; }

private:
    void checkGrid();

    dp::TrainConfig base_;
    std::vector<dp::DeviceInfo> devices_;
    dp::StudyPlan plan_;
    bool valid_ = false;
    QLineEdit* deviceCounts_;
    QLineEdit* batchSizes_;
    QLineEdit* lrs_;
    QSpinBox* repeats_;
    QLabel* status_;
    QDialogButtonBox* buttons_;
};

// The device counts a sweep over `available` devices starts with: the powers
// of two below it and the count itself ("1,2,4,6" for 6).
QString defaultDeviceCounts(int available);
