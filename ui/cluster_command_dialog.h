#pragma once

#include <QDialog>

#include "config/train_config.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

// The mpirun + dp-train command line that reproduces the current settings on
// a cluster, one process per device, with a Copy button and what to do with
// the run record it writes. The command names the dp-train beside the running
// program by its full path, and is broken into shell continuation lines only
// between arguments, so what is copied pastes into a terminal as it reads.
class ClusterCommandDialog : public QDialog {
    Q_OBJECT

public:
    explicit ClusterCommandDialog(const dp::TrainConfig& config, QWidget* parent = nullptr);

    QString command() const;
    // Where to look for dp-train; by default the folder of the running program.
    void lookForDpTrainIn(const QString& folder);

private:
    void updateCommand();

    dp::TrainConfig config_;
    QString dpTrain_;  // the program the command runs: a full path, or "dp-train" from PATH
    QSpinBox* processesSpin_;
    QLineEdit* hostfileEdit_;
    QLabel* programNote_;
    QPlainTextEdit* commandView_;
};
