#pragma once

#include <QDialog>

#include "train/train_config.h"

class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

// The mpirun + dp-train command line that reproduces the current settings on
// a cluster, one process per device, with a Copy button and what to do with
// the run record it writes.
class ClusterCommandDialog : public QDialog {
    Q_OBJECT

public:
    explicit ClusterCommandDialog(const dp::TrainConfig& config, QWidget* parent = nullptr);

    QString command() const;

private:
    void updateCommand();

    dp::TrainConfig config_;
    QSpinBox* processesSpin_;
    QLineEdit* hostfileEdit_;
    QPlainTextEdit* commandView_;
};
