#pragma once

#include <QWidget>

#include "train/train_config.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

// The inputs that define a training run, checked by dp::validate as they
// change so that a bad combination is explained before Start. Settings
// without a widget (shuffling, checkpoints) pass through setConfig().
class RunConfigPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunConfigPanel(QWidget* parent = nullptr);

    dp::TrainConfig config() const;
    void setConfig(const dp::TrainConfig& config);

    // "Scale batch and learning rate with the device count": how Compare 1 vs N
    // sizes its runs (dp::comparison_configs).
    bool scalesWithDeviceCount() const;
    void setScalesWithDeviceCount(bool scale);
    int checkedDeviceCount() const;

    // Whether config() can run; if not, the panel shows why.
    bool isValid() const { return validationError_.isEmpty(); }
    QString validationError() const { return validationError_; }

signals:
    void validityChanged(bool valid);
    // Any setting changed (the window saves them, the cluster dialog follows).
    void configChanged();

private:
    void revalidate();
    void showModelDescription();
    void showDatasetSettings();
    void chooseDataFolder();

    dp::TrainConfig hiddenSettings_;
    QString validationError_;

    QComboBox* modelCombo_;
    QLabel* modelDescription_;
    QSpinBox* batchSizeSpin_;
    QDoubleSpinBox* learningRateSpin_;
    QSpinBox* epochsSpin_;
    QSpinBox* seedSpin_;
    QComboBox* datasetCombo_;
    QFormLayout* dataForm_;
    QWidget* dataFolderRow_;
    QLineEdit* dataFolderEdit_;
    QPushButton* dataFolderButton_;
    QSpinBox* inputSizeSpin_;
    QSpinBox* samplesSpin_;
    QSpinBox* trainSamplesSpin_;
    QSpinBox* testSamplesSpin_;
    QListWidget* deviceList_;
    QComboBox* allreduceCombo_;
    QCheckBox* syncBnCheck_;
    QCheckBox* scaleCheck_;
    QLabel* validationLabel_;
};
