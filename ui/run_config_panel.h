#pragma once

#include <QWidget>

#include "train/train_config.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QSpinBox;

// The inputs that define a training run. Settings without a widget (data
// directory, seed, shuffling) pass through from setConfig() unchanged.
class RunConfigPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunConfigPanel(QWidget* parent = nullptr);

    dp::TrainConfig config() const;
    void setConfig(const dp::TrainConfig& config);

    // Whether dp::validate accepts config(); if not, the panel shows why.
    bool isValid() const { return validationError_.isEmpty(); }

signals:
    void validityChanged(bool valid);

private:
    void revalidate();
    void showModelDescription();

    dp::TrainConfig hiddenSettings_;
    QString validationError_;

    QComboBox* modelCombo_;
    QLabel* modelDescription_;
    QSpinBox* batchSizeSpin_;
    QDoubleSpinBox* learningRateSpin_;
    QSpinBox* epochsSpin_;
    QSpinBox* trainSamplesSpin_;
    QSpinBox* testSamplesSpin_;
    QListWidget* deviceList_;
    QComboBox* allreduceCombo_;
    QCheckBox* syncBnCheck_;
    QLabel* validationLabel_;
};
