#pragma once

#include <QWidget>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/device_choice.h"
#include "run_settings.h"
#include "settings_check.h"
#include "config/train_config.h"

class DataFolderField;
class DeviceChooser;
class FieldNote;
class QAbstractSpinBox;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QGroupBox;
class QLabel;
class QSpinBox;
class SettingEditor;

// The inputs that define a training run, checked as they change
// (checkRunSettings) so that a bad combination is explained by its field
// before Start. Settings without a widget (shuffling, checkpoints) pass
// through setConfig().
class RunConfigPanel : public QWidget {
    Q_OBJECT

public:
    // `devices`: what the device list offers (tests pass a made-up machine).
    explicit RunConfigPanel(QWidget* parent = nullptr);
    explicit RunConfigPanel(std::vector<dp::DeviceInfo> devices, QWidget* parent = nullptr);

    dp::TrainConfig config() const;
    void setConfig(const dp::TrainConfig& config);

    // The folder chosen for each image data set (DataFolderField).
    DataFolders dataFolders() const;
    void setDataFolders(const DataFolders& folders);

    // "Scale batch and learning rate with the device count": how Compare 1 vs N
    // sizes its runs (dp::comparison_configs).
    bool scalesWithDeviceCount() const;
    void setScalesWithDeviceCount(bool scale);
    int checkedDeviceCount() const;
    // How many times Compare 1 vs N runs its pair, alternating 1, N, 1, N:
    // the field's value, or on "auto" (0) 3 for short runs and 1 for long
    // ones (kShortRunImages).
    int comparisonRepeats() const;
    int comparisonRepeatsField() const;  // as set: 0 for auto
    void setComparisonRepeatsField(int repeats);

    // The range a numeric field's spin box takes, by config_fields name
    // ("batch_size": 0 to 65536); nothing for a field the panel has no spin
    // box for. A value outside it would be shown, and kept, clamped.
    struct NumberRange {
        double minimum, maximum;
    };
    static std::optional<NumberRange> numberRange(const std::string& field);

    // Whether config() can run; if not, the fields show why.
    bool isValid() const;
    // Why not, in a sentence for the status line; empty when it can run.
    QString validationError() const;
    // The hints on the current settings (they run, but will disappoint), for
    // a view that hides the panel, as presenter mode does.
    QStringList hints() const;

signals:
    void validityChanged(bool valid);
    // Any setting changed (the window saves them, the cluster dialog follows).
    void configChanged();

protected:
    // Back in the window, the data folder is checked again: the user may
    // have just downloaded the files.
    void changeEvent(QEvent* event) override;

private:
    // A row of `form` labeled as config_fields labels `field`, with its note below.
    void addFieldRow(QGridLayout* form, const char* field, QWidget* widget);
    // Shows or hides a field with its label (a data set's own settings).
    void setFieldRowVisible(QWidget* widget, bool visible);
    FieldNote* addNote(const char* field);
    // Each field's name, choices, range and tooltip, by the box it sits in.
    void setUpModelFields();
    void setUpTrainingFields();
    void setUpDataFields();
    void setUpDeviceFields();
    // The four boxes in a column under the general note.
    void layOutBoxes();
    QGroupBox* buildModelBox();
    QGroupBox* buildTrainingBox();
    QGroupBox* buildDataBox();
    QGroupBox* buildDevicesBox();
    QGroupBox* buildAdvancedBox();
    void connectFields();
    void revalidate();
    void showModelDescription();
    void offerPrecisionsRunnableOn(const std::vector<dp::DeviceInfo>& devices);
    void offerSyncBnFor(int modelIndex);
    void showDatasetSettings();
    std::map<std::string, QString> shownValues() const;

    dp::TrainConfig hiddenSettings_;
    std::vector<SettingsNote> notes_;

    QComboBox* modelCombo_;
    QLabel* modelDescription_;
    QSpinBox* batchSizeSpin_;
    QDoubleSpinBox* learningRateSpin_;
    QSpinBox* epochsSpin_;
    QSpinBox* seedSpin_;
    QComboBox* precisionCombo_;
    QComboBox* datasetCombo_;
    QGridLayout* dataForm_;
    DataFolderField* dataFolder_;
    QSpinBox* inputSizeSpin_;
    QSpinBox* samplesSpin_;
    QSpinBox* trainSamplesSpin_;
    QSpinBox* testSamplesSpin_;
    DeviceChooser* devices_;
    QComboBox* allreduceCombo_;
    QCheckBox* syncBnCheck_;
    QCheckBox* scaleCheck_;
    QSpinBox* repeatsSpin_;
    // The Advanced box's settings, each edited generically from its schema row.
    std::vector<SettingEditor*> advancedEditors_;
    // Each numeric field's spin box, by config_fields name, for the notes' quotes.
    std::vector<std::pair<const char*, QAbstractSpinBox*>> numberFields_;
    // The note under each field, by config_fields name; generalNote_ for the
    // problems of no field shown here (a checkpoint path, say).
    std::map<std::string, FieldNote*> fieldNotes_;
    FieldNote* generalNote_;
    std::map<QWidget*, QLabel*> fieldLabels_;  // each field's label, by field
};
