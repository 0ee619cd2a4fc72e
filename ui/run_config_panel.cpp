#include "run_config_panel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "data_folder_field.h"
#include "device_chooser.h"
#include "engine_message.h"
#include "field_note.h"
#include "decimal_spin_box.h"
#include "setting_editor.h"
#include "settings_check.h"
#include "models/model_info.h"
#include "core/error.h"
#include "config/config_fields.h"
#include "config/train_config.h"

namespace {

// Auto repeats: a comparison of runs up to this many training images (epochs
// times images: 2 epochs of 10,240 LeNet images take about 10 s a run on 2
// cores) is cheap to repeat 3 times; longer ones run once.
constexpr int kShortRunImages = 200'000;

// Zero batch is reachable on purpose: its note explains why it is refused.
const std::map<std::string, RunConfigPanel::NumberRange> kNumberRanges{
    {"batch_size", {0, 65536}},       {"lr", {-10.0, 10.0}},
    {"epochs", {1, 1000}},            {"seed", {0, 2'000'000'000}},
    {"input_size", {1, 1'000'000}},   {"samples", {1, 10'000'000}},
    {"limit_train", {0, 10'000'000}}, {"limit_test", {0, 10'000'000}},
};

QSpinBox* createSpin(const QString& objectName, const char* field, QWidget* parent)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(objectName);
    const RunConfigPanel::NumberRange range = kNumberRanges.at(field);
    spin->setRange(int(range.minimum), int(range.maximum));
    return spin;
}

// A spin box for a sample limit, where 0 means the whole set.
QSpinBox* createSampleLimitSpin(const QString& objectName, const char* field, QWidget* parent)
{
    auto* spin = createSpin(objectName, field, parent);
    spin->setSingleStep(1000);
    spin->setSpecialValueText(RunConfigPanel::tr("all"));
    spin->setToolTip(RunConfigPanel::tr("Use only the first N images of the set; 0 uses all."));
    return spin;
}

// Why the engine refuses `precision` on `device` (dp::validate's precision
// check, on default settings otherwise), or empty.
std::string precisionRefusal(const std::string& precision, const dp::DeviceInfo& device)
{
    dp::TrainConfig config;
    config.precision = precision;
    try {
        dp::validate(config, {device});
    } catch (const dp::SettingError& error) {
        if (error.setting() == "precision")
            return error.what();
    } catch (const dp::Error&) {
        // Another setting's problem: not the precision's.
    }
    return {};
}

}  // namespace

RunConfigPanel::RunConfigPanel(QWidget* parent) : RunConfigPanel(dp::available_devices(), parent)
{
}

RunConfigPanel::RunConfigPanel(std::vector<dp::DeviceInfo> devices, QWidget* parent)
    : QWidget(parent),
      modelCombo_(new QComboBox(this)),
      modelDescription_(new QLabel(this)),
      batchSizeSpin_(createSpin(QStringLiteral("batchSizeSpin"), "batch_size", this)),
      learningRateSpin_(new DecimalSpinBox(this)),
      epochsSpin_(createSpin(QStringLiteral("epochsSpin"), "epochs", this)),
      seedSpin_(createSpin(QStringLiteral("seedSpin"), "seed", this)),
      precisionCombo_(new QComboBox(this)),
      datasetCombo_(new QComboBox(this)),
      dataForm_(new QGridLayout),
      dataFolder_(new DataFolderField(this)),
      inputSizeSpin_(createSpin(QStringLiteral("inputSizeSpin"), "input_size", this)),
      samplesSpin_(createSpin(QStringLiteral("samplesSpin"), "samples", this)),
      trainSamplesSpin_(createSampleLimitSpin(QStringLiteral("trainSamplesSpin"), "limit_train", this)),
      testSamplesSpin_(createSampleLimitSpin(QStringLiteral("testSamplesSpin"), "limit_test", this)),
      devices_(new DeviceChooser(std::move(devices), this)),
      allreduceCombo_(new QComboBox(this)),
      syncBnCheck_(new QCheckBox(settingLabel("sync_bn"), this)),
      scaleCheck_(new QCheckBox(tr("Scale batch and learning rate\nwith the device count"), this)),
      repeatsSpin_(new QSpinBox(this)),
      numberFields_{{"batch_size", batchSizeSpin_}, {"lr", learningRateSpin_},
                    {"epochs", epochsSpin_},        {"seed", seedSpin_},
                    {"input_size", inputSizeSpin_}, {"samples", samplesSpin_},
                    {"limit_train", trainSamplesSpin_}, {"limit_test", testSamplesSpin_}},
      generalNote_(new FieldNote(QStringLiteral("generalNote"), this))
{
    setUpModelFields();
    setUpTrainingFields();
    setUpDataFields();
    setUpDeviceFields();
    offerPrecisionsRunnableOn(devices_->availableDevices());
    layOutBoxes();
    setConfig(dp::TrainConfig{});
    connectFields();
}

void RunConfigPanel::setUpModelFields()
{
    modelCombo_->setObjectName(QStringLiteral("modelCombo"));
    for (const dp::ModelInfo& model : dp::model_registry())
        modelCombo_->addItem(QStringLiteral("%1 · %2 parameters")
                                 .arg(QString::fromStdString(model.title))
                                 .arg(QLocale().toString(qulonglong(model.parameters))),
                             QString::fromStdString(model.name));
    modelDescription_->setWordWrap(true);
    modelDescription_->setForegroundRole(QPalette::PlaceholderText);
}

void RunConfigPanel::setUpTrainingFields()
{
    batchSizeSpin_->setToolTip(tr("The global batch: each step splits it across the devices."));
    learningRateSpin_->setObjectName(QStringLiteral("learningRateSpin"));
    // Negative numbers can be typed, to be explained rather than ignored.
    learningRateSpin_->setRange(kNumberRanges.at("lr").minimum, kNumberRanges.at("lr").maximum);
    learningRateSpin_->setDecimals(6);
    learningRateSpin_->setSingleStep(0.01);
    seedSpin_->setToolTip(tr("Initial weights and shuffling order: the same seed repeats a run."));

    precisionCombo_->setObjectName(QStringLiteral("precisionCombo"));
    for (const std::string& name : dp::field_choices(dp::config_field("precision")))
        precisionCombo_->addItem(QString::fromStdString(name), QString::fromStdString(name));
    precisionCombo_->setToolTip(
        tr("What convolutions and linear layers multiply in: fp32; bf16 (bfloat16 products, "
           "float32 weights, loss and BatchNorm, as PyTorch's autocast; CPUs with AVX512_BF16 "
           "or AMX, and GPUs); tf32 (TF32 tensor cores, GPUs only)."));
}

void RunConfigPanel::setUpDataFields()
{
    datasetCombo_->setObjectName(QStringLiteral("datasetCombo"));
    datasetCombo_->addItem(tr("Fashion-MNIST"), QStringLiteral("fashion-mnist"));
    datasetCombo_->addItem(tr("MNIST-format folder"), QStringLiteral("mnist-format"));
    datasetCombo_->addItem(tr("Synthetic (random)"), QStringLiteral("random"));
    datasetCombo_->setToolTip(tr("Synthetic: PyTorch's DataParallel tutorial's random vectors with 2 classes, for the "
                                 "Linear model and batch-split demonstrations."));
    inputSizeSpin_->setToolTip(tr("Features per synthetic sample (PyTorch's DataParallel tutorial's input_size)."));
    samplesSpin_->setToolTip(tr("Synthetic samples in the training set, and in the test set."));
}

void RunConfigPanel::setUpDeviceFields()
{
    allreduceCombo_->setObjectName(QStringLiteral("allreduceCombo"));
    allreduceCombo_->addItem(tr("ring"), int(dp::AllReduceStrategy::ring));
    allreduceCombo_->addItem(tr("naive"), int(dp::AllReduceStrategy::naive));
    allreduceCombo_->addItem(tr("DataParallel (parameters on device 0)"),
                             int(dp::AllReduceStrategy::dataparallel));
    allreduceCombo_->setToolTip(tr("How replicas sum their gradients after each step: NCCL's ring "
                                   "(reduce-scatter + all-gather), d2l's copy-to-device-0, or "
                                   "nn.DataParallel's step (loss, sum and update on device 0)."));

    syncBnCheck_->setObjectName(QStringLiteral("syncBnCheck"));
    scaleCheck_->setObjectName(QStringLiteral("scaleCheck"));
    scaleCheck_->setToolTip(tr("Compare 1 vs N: the N-device run gets N times the batch size "
                               "and learning rate (the linear scaling rule, d2l 12.6's 256/0.1 "
                               "vs 512/0.2); off: both runs use the same settings."));
    repeatsSpin_->setObjectName(QStringLiteral("repeatsSpin"));
    repeatsSpin_->setRange(0, 10);
    repeatsSpin_->setSpecialValueText(tr("auto"));
    repeatsSpin_->setToolTip(
        tr("Compare 1 vs N runs the pair this many times, alternating 1, N, 1, N so that the "
           "machine's changing load hits both, and quotes the median speedup with its range: one "
           "pair alone gave 0.73× to 2.11× for the same LeNet comparison within an hour. Auto: 3 "
           "for runs of up to %L1 training images (epochs × images), else 1.")
            .arg(kShortRunImages));
}

void RunConfigPanel::layOutBoxes()
{
    QGroupBox* modelBox = buildModelBox();
    QGroupBox* trainingBox = buildTrainingBox();
    QGroupBox* dataBox = buildDataBox();
    QGroupBox* devicesBox = buildDevicesBox();
    QGroupBox* advancedBox = buildAdvancedBox();

    // Spare room goes to the stretch below the boxes. A box may grow past its
    // size hint, never be capped at it: a note wrapped over more lines than
    // the hint's width allows for would squeeze the field rows under it.
    for (QGroupBox* box : {modelBox, trainingBox, dataBox, devicesBox, advancedBox})
        box->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(generalNote_);
    layout->addWidget(modelBox);
    layout->addWidget(trainingBox);
    layout->addWidget(dataBox);
    layout->addWidget(devicesBox);
    layout->addWidget(advancedBox);
    layout->addStretch();
}

QGroupBox* RunConfigPanel::buildModelBox()
{
    auto* modelBox = new QGroupBox(settingLabel("model"), this);
    auto* modelLayout = new QVBoxLayout(modelBox);
    modelLayout->addWidget(modelCombo_);
    modelLayout->addWidget(modelDescription_);
    modelLayout->addWidget(addNote("model"));
    return modelBox;
}

QGroupBox* RunConfigPanel::buildTrainingBox()
{
    auto* trainingBox = new QGroupBox(tr("Training"), this);
    auto* trainingForm = new QGridLayout(trainingBox);
    addFieldRow(trainingForm, "batch_size", batchSizeSpin_);
    addFieldRow(trainingForm, "lr", learningRateSpin_);
    addFieldRow(trainingForm, "epochs", epochsSpin_);
    addFieldRow(trainingForm, "seed", seedSpin_);
    addFieldRow(trainingForm, "precision", precisionCombo_);
    return trainingBox;
}

QGroupBox* RunConfigPanel::buildDataBox()
{
    auto* dataBox = new QGroupBox(tr("Data"), this);
    dataBox->setLayout(dataForm_);
    addFieldRow(dataForm_, "dataset", datasetCombo_);
    addFieldRow(dataForm_, "data_dir", dataFolder_);
    addFieldRow(dataForm_, "input_size", inputSizeSpin_);
    addFieldRow(dataForm_, "samples", samplesSpin_);
    addFieldRow(dataForm_, "limit_train", trainSamplesSpin_);
    addFieldRow(dataForm_, "limit_test", testSamplesSpin_);
    return dataBox;
}

QGroupBox* RunConfigPanel::buildDevicesBox()
{
    auto* devicesBox = new QGroupBox(settingLabel("devices"), this);
    auto* devicesLayout = new QVBoxLayout(devicesBox);
    devicesLayout->addWidget(devices_);
    devicesLayout->addWidget(addNote("devices"));
    auto* allreduceRow = new QHBoxLayout;
    allreduceRow->addWidget(new QLabel(settingLabel("allreduce"), devicesBox));
    allreduceRow->addWidget(allreduceCombo_, 1);
    devicesLayout->addLayout(allreduceRow);
    devicesLayout->addWidget(syncBnCheck_);
    devicesLayout->addWidget(scaleCheck_);
    auto* repeatsRow = new QHBoxLayout;
    auto* repeatsLabel = new QLabel(tr("Compare repeats"), devicesBox);
    repeatsLabel->setBuddy(repeatsSpin_);
    repeatsRow->addWidget(repeatsLabel);
    repeatsRow->addWidget(repeatsSpin_, 1);
    devicesLayout->addLayout(repeatsRow);
    return devicesBox;
}

QGroupBox* RunConfigPanel::buildAdvancedBox()
{
    auto* advancedBox = new QGroupBox(tr("Advanced"), this);
    auto* advancedForm = new QGridLayout(advancedBox);
    for (const dp::ConfigField& field : dp::config_fields()) {
        if (!(field.scope & dp::ConfigField::advanced))
            continue;
        auto* editor = new SettingEditor(field, advancedBox);
        addFieldRow(advancedForm, field.name, editor->widget());
        advancedEditors_.push_back(editor);
    }
    return advancedBox;
}

// Every field revalidates the settings; the scaling switch only changes how
// Compare 1 vs N sizes its runs, so it just reports a change.
void RunConfigPanel::connectFields()
{
    connect(modelCombo_, &QComboBox::currentIndexChanged, this, [this] {
        showModelDescription();
        revalidate();
    });
    connect(datasetCombo_, &QComboBox::currentIndexChanged, this, [this] {
        showDatasetSettings();
        revalidate();
    });
    connect(dataFolder_, &DataFolderField::folderChanged, this, &RunConfigPanel::revalidate);
    for (QSpinBox* spin : {batchSizeSpin_, epochsSpin_, seedSpin_, inputSizeSpin_, samplesSpin_,
                           trainSamplesSpin_, testSamplesSpin_})
        connect(spin, &QSpinBox::valueChanged, this, &RunConfigPanel::revalidate);
    connect(learningRateSpin_, &QDoubleSpinBox::valueChanged, this, &RunConfigPanel::revalidate);
    connect(devices_, &DeviceChooser::checkedChanged, this, &RunConfigPanel::revalidate);
    connect(allreduceCombo_, &QComboBox::currentIndexChanged, this, &RunConfigPanel::revalidate);
    connect(precisionCombo_, &QComboBox::currentIndexChanged, this, &RunConfigPanel::revalidate);
    connect(syncBnCheck_, &QCheckBox::toggled, this, &RunConfigPanel::revalidate);
    connect(scaleCheck_, &QCheckBox::toggled, this, &RunConfigPanel::configChanged);
    connect(repeatsSpin_, &QSpinBox::valueChanged, this, &RunConfigPanel::configChanged);
    for (SettingEditor* editor : advancedEditors_)
        connect(editor, &SettingEditor::changed, this, &RunConfigPanel::revalidate);
}

// A grid rather than a QFormLayout: QFormLayout (Qt 6.4) under-reports the
// height a wrapped note needs once notes have come and gone, and the box
// then squeezes the rows below the note to nothing.
void RunConfigPanel::addFieldRow(QGridLayout* form, const char* field, QWidget* widget)
{
    const int row = form->count() == 0 ? 0 : form->rowCount();
    auto* label = new QLabel(settingLabel(field), this);
    label->setBuddy(widget);
    fieldLabels_[widget] = label;
    form->addWidget(label, row, 0);
    form->addWidget(widget, row, 1);
    form->setColumnStretch(1, 1);
    // The full width under the row: a note may quote a long path.
    form->addWidget(addNote(field), row + 1, 0, 1, 2);
}

void RunConfigPanel::setFieldRowVisible(QWidget* widget, bool visible)
{
    fieldLabels_.at(widget)->setVisible(visible);
    widget->setVisible(visible);
}

FieldNote* RunConfigPanel::addNote(const char* field)
{
    auto* note = new FieldNote(QString::fromLatin1(field) + QStringLiteral("Note"), this);
    fieldNotes_[field] = note;
    return note;
}

dp::TrainConfig RunConfigPanel::config() const
{
    dp::TrainConfig config = hiddenSettings_;
    config.model = modelCombo_->currentData().toString().toStdString();
    config.batch_size = batchSizeSpin_->value();
    config.lr = static_cast<float>(learningRateSpin_->value());
    config.epochs = epochsSpin_->value();
    config.seed = std::uint64_t(seedSpin_->value());
    config.precision = precisionCombo_->currentData().toString().toStdString();
    config.dataset = datasetCombo_->currentData().toString().toStdString();
    // The folder applies to the image sets; the synthetic one has none.
    config.data_dir = config.dataset == "random" ? std::string() : dataFolder_->folder().toStdString();
    config.input_size = inputSizeSpin_->value();
    config.samples = samplesSpin_->value();
    config.limit_train = trainSamplesSpin_->value();
    config.limit_test = testSamplesSpin_->value();
    // Listed explicitly even when they are the default, so the run records them.
    config.devices = devices_->checkedIds();
    config.allreduce = dp::AllReduceStrategy(allreduceCombo_->currentData().toInt());
    config.sync_bn = syncBnCheck_->isChecked();
    for (const SettingEditor* editor : advancedEditors_)
        editor->write(config);
    return config;
}

void RunConfigPanel::setConfig(const dp::TrainConfig& config)
{
    hiddenSettings_ = config;
    {
        // Signals would revalidate once per widget against half-applied settings.
        const QSignalBlocker blockers[] = {
            QSignalBlocker(modelCombo_),       QSignalBlocker(batchSizeSpin_),
            QSignalBlocker(learningRateSpin_), QSignalBlocker(epochsSpin_),
            QSignalBlocker(seedSpin_),         QSignalBlocker(precisionCombo_),
            QSignalBlocker(datasetCombo_),
            QSignalBlocker(dataFolder_),       QSignalBlocker(inputSizeSpin_),
            QSignalBlocker(samplesSpin_),      QSignalBlocker(trainSamplesSpin_),
            QSignalBlocker(testSamplesSpin_),  QSignalBlocker(devices_),
            QSignalBlocker(allreduceCombo_),   QSignalBlocker(syncBnCheck_)};
        modelCombo_->setCurrentIndex(modelCombo_->findData(QString::fromStdString(config.model)));
        batchSizeSpin_->setValue(config.batch_size);
        learningRateSpin_->setValue(config.lr);
        epochsSpin_->setValue(config.epochs);
        seedSpin_->setValue(int(std::min<std::uint64_t>(config.seed, 2'000'000'000)));
        precisionCombo_->setCurrentIndex(
            std::max(precisionCombo_->findData(QString::fromStdString(config.precision)), 0));
        datasetCombo_->setCurrentIndex(
            std::max(datasetCombo_->findData(QString::fromStdString(config.dataset)), 0));
        dataFolder_->setDataset(datasetCombo_->currentData().toString());
        if (config.dataset != "random")
            dataFolder_->setFolder(QString::fromStdString(config.data_dir));
        inputSizeSpin_->setValue(config.input_size);
        samplesSpin_->setValue(config.samples);
        trainSamplesSpin_->setValue(config.limit_train);
        testSamplesSpin_->setValue(config.limit_test);
        // No devices means the default, as in the engine.
        devices_->setCheckedIds(config.devices);
        // The combo offers only the engine's strategies; anything else shows as the first.
        allreduceCombo_->setCurrentIndex(
            std::max(allreduceCombo_->findData(int(config.allreduce)), 0));
        syncBnCheck_->setChecked(config.sync_bn);
        for (SettingEditor* editor : advancedEditors_) {
            const QSignalBlocker blocker(editor);
            editor->read(config);
        }
    }
    showModelDescription();
    showDatasetSettings();
    revalidate();
}

DataFolders RunConfigPanel::dataFolders() const
{
    return dataFolder_->folders();
}

void RunConfigPanel::setDataFolders(const DataFolders& folders)
{
    {
        const QSignalBlocker blocker(dataFolder_);
        dataFolder_->setFolders(folders);
    }
    revalidate();
}

bool RunConfigPanel::scalesWithDeviceCount() const
{
    return scaleCheck_->isChecked();
}

void RunConfigPanel::setScalesWithDeviceCount(bool scale)
{
    scaleCheck_->setChecked(scale);
}

int RunConfigPanel::comparisonRepeats() const
{
    if (repeatsSpin_->value() > 0)
        return repeatsSpin_->value();
    const dp::TrainConfig settings = config();
    const long long images = (long long)settings.epochs * trainingImages(settings);
    return images > 0 && images <= kShortRunImages ? 3 : 1;
}

int RunConfigPanel::comparisonRepeatsField() const
{
    return repeatsSpin_->value();
}

void RunConfigPanel::setComparisonRepeatsField(int repeats)
{
    repeatsSpin_->setValue(repeats);
}

int RunConfigPanel::checkedDeviceCount() const
{
    return int(devices_->checkedDevices().size());  // replicas counted
}

bool RunConfigPanel::isValid() const
{
    return std::none_of(notes_.begin(), notes_.end(), [](const SettingsNote& note) {
        return note.kind == SettingsNote::Kind::problem;
    });
}

QString RunConfigPanel::validationError() const
{
    const auto problems = std::count_if(notes_.begin(), notes_.end(), [](const SettingsNote& note) {
        return note.kind == SettingsNote::Kind::problem;
    });
    if (problems == 0)
        return {};
    // Problems come first.
    const QString first = notes_.front().text;
    return problems == 1 ? first
                         : tr("%1 And %n more, shown by the settings.", nullptr, int(problems - 1))
                               .arg(first);
}

std::optional<RunConfigPanel::NumberRange> RunConfigPanel::numberRange(const std::string& field)
{
    const auto found = kNumberRanges.find(field);
    if (found == kNumberRanges.end())
        return std::nullopt;
    return found->second;
}

void RunConfigPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::ActivationChange && isActiveWindow())
        revalidate();
}

std::map<std::string, QString> RunConfigPanel::shownValues() const
{
    std::map<std::string, QString> values;
    for (const auto& [field, spin] : numberFields_)
        values[field] = spin->text();
    for (const SettingEditor* editor : advancedEditors_)
        values[editor->field().name] = editor->shownText();
    return values;
}

void RunConfigPanel::revalidate()
{
    const bool wasValid = isValid();
    notes_ = checkRunSettings(config(), devices_->checkedDevices(), shownValues());
    generalNote_->clearNote();
    for (const auto& [field, note] : fieldNotes_)
        note->clearNote();
    for (const SettingsNote& note : notes_) {
        const auto found = fieldNotes_.find(note.field);
        FieldNote* shownBy = found != fieldNotes_.end() ? found->second : generalNote_;
        const QString before = shownBy->text();
        shownBy->setNote(before.isEmpty() ? note.text : before + QLatin1Char('\n') + note.text,
                         note.kind);
    }
    if (isValid() != wasValid)
        emit validityChanged(isValid());
    emit configChanged();
}

QStringList RunConfigPanel::hints() const
{
    QStringList texts;
    for (const SettingsNote& note : notes_)
        if (note.kind == SettingsNote::Kind::hint)
            texts << note.text;
    return texts;
}

void RunConfigPanel::showModelDescription()
{
    const int index = modelCombo_->currentIndex();
    const QString description =
        index < 0 ? QString() : QString::fromStdString(dp::model_registry()[index].description);
    modelDescription_->setText(description);
    modelDescription_->setVisible(!description.isEmpty());
    offerSyncBnFor(index);
}

// A precision none of this machine's devices computes is shown, disabled,
// with the engine's reason, rather than refused after it is chosen.
void RunConfigPanel::offerPrecisionsRunnableOn(const std::vector<dp::DeviceInfo>& devices)
{
    auto* items = qobject_cast<QStandardItemModel*>(precisionCombo_->model());
    for (int row = 0; row < precisionCombo_->count(); ++row) {
        const std::string precision = precisionCombo_->itemData(row).toString().toStdString();
        std::string refusal;
        for (const dp::DeviceInfo& device : devices) {
            refusal = precisionRefusal(precision, device);
            if (refusal.empty())
                break;
        }
        items->item(row)->setEnabled(refusal.empty());
        precisionCombo_->setItemData(row, refusal.empty() ? QVariant() : QVariant(engineMessage(refusal)),
                                     Qt::ToolTipRole);
    }
}

// Synchronized BatchNorm only means something for a model with BatchNorm.
void RunConfigPanel::offerSyncBnFor(int modelIndex)
{
    const auto& models = dp::model_registry();
    const bool applies = modelIndex < 0 || models[modelIndex].batch_norm;
    syncBnCheck_->setEnabled(applies);
    syncBnCheck_->setToolTip(
        applies ? tr("Compute BatchNorm statistics over the global batch, not each device's shard.")
                : tr("%1 has no BatchNorm layers: there are no statistics to synchronize.")
                      .arg(QString::fromStdString(models[modelIndex].title)));
}

void RunConfigPanel::showDatasetSettings()
{
    const QString dataset = datasetCombo_->currentData().toString();
    const bool synthetic = dataset == QLatin1String("random");
    dataFolder_->setDataset(dataset);
    setFieldRowVisible(dataFolder_, !synthetic);
    setFieldRowVisible(inputSizeSpin_, synthetic);
    setFieldRowVisible(samplesSpin_, synthetic);
    setFieldRowVisible(trainSamplesSpin_, !synthetic);
    setFieldRowVisible(testSamplesSpin_, !synthetic);
}
