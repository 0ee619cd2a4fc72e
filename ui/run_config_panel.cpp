#include "run_config_panel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/error.h"
#include "engine_message.h"
#include "data/dataset.h"
#include "devices/device.h"
#include "models/model_registry.h"

namespace {

// A spin box for a sample limit, where 0 means the whole set.
QSpinBox* createSampleLimitSpin(const QString& objectName, QWidget* parent)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(0, 10'000'000);
    spin->setSingleStep(1000);
    spin->setSpecialValueText(RunConfigPanel::tr("all"));
    spin->setToolTip(RunConfigPanel::tr("Use only the first N images of the set; 0 uses all."));
    return spin;
}

QSpinBox* createSpin(const QString& objectName, int minimum, int maximum, QWidget* parent)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(minimum, maximum);
    return spin;
}

}  // namespace

RunConfigPanel::RunConfigPanel(QWidget* parent)
    : QWidget(parent),
      modelCombo_(new QComboBox(this)),
      modelDescription_(new QLabel(this)),
      // Zero is reachable on purpose: validation explains why it is refused.
      batchSizeSpin_(createSpin(QStringLiteral("batchSizeSpin"), 0, 65536, this)),
      learningRateSpin_(new QDoubleSpinBox(this)),
      epochsSpin_(createSpin(QStringLiteral("epochsSpin"), 1, 1000, this)),
      seedSpin_(createSpin(QStringLiteral("seedSpin"), 0, 2'000'000'000, this)),
      datasetCombo_(new QComboBox(this)),
      dataForm_(new QFormLayout),
      dataFolderRow_(new QWidget(this)),
      dataFolderEdit_(new QLineEdit(dataFolderRow_)),
      dataFolderButton_(new QPushButton(tr("Browse…"), dataFolderRow_)),
      inputSizeSpin_(createSpin(QStringLiteral("inputSizeSpin"), 1, 1'000'000, this)),
      samplesSpin_(createSpin(QStringLiteral("samplesSpin"), 1, 10'000'000, this)),
      trainSamplesSpin_(createSampleLimitSpin(QStringLiteral("trainSamplesSpin"), this)),
      testSamplesSpin_(createSampleLimitSpin(QStringLiteral("testSamplesSpin"), this)),
      deviceList_(new QListWidget(this)),
      allreduceCombo_(new QComboBox(this)),
      syncBnCheck_(new QCheckBox(tr("Synchronized BatchNorm"), this)),
      scaleCheck_(new QCheckBox(tr("Scale batch and learning rate\nwith the device count"), this)),
      validationLabel_(new QLabel(this))
{
    modelCombo_->setObjectName(QStringLiteral("modelCombo"));
    for (const dp::ModelInfo& model : dp::model_registry())
        modelCombo_->addItem(QStringLiteral("%1 · %2 parameters")
                                 .arg(QString::fromStdString(model.title))
                                 .arg(QLocale().toString(qulonglong(model.parameters))),
                             QString::fromStdString(model.name));
    modelDescription_->setWordWrap(true);
    modelDescription_->setForegroundRole(QPalette::PlaceholderText);

    batchSizeSpin_->setToolTip(tr("The global batch: each step splits it across the devices."));
    learningRateSpin_->setObjectName(QStringLiteral("learningRateSpin"));
    learningRateSpin_->setRange(0.0, 10.0);
    learningRateSpin_->setDecimals(4);
    learningRateSpin_->setSingleStep(0.01);
    seedSpin_->setToolTip(tr("Initial weights and shuffling order: the same seed repeats a run."));

    datasetCombo_->setObjectName(QStringLiteral("datasetCombo"));
    datasetCombo_->addItem(tr("Fashion-MNIST"), QStringLiteral("fashion-mnist"));
    datasetCombo_->addItem(tr("MNIST-format folder"), QStringLiteral("mnist-format"));
    datasetCombo_->addItem(tr("Synthetic (random)"), QStringLiteral("random"));
    datasetCombo_->setToolTip(tr("Synthetic: seed 004's random vectors with 2 classes, for the "
                                 "Linear model and batch-split demonstrations."));
    dataFolderEdit_->setObjectName(QStringLiteral("dataFolderEdit"));
    dataFolderButton_->setObjectName(QStringLiteral("dataFolderButton"));
    auto* folderLayout = new QHBoxLayout(dataFolderRow_);
    folderLayout->setContentsMargins(0, 0, 0, 0);
    folderLayout->addWidget(dataFolderEdit_, 1);
    folderLayout->addWidget(dataFolderButton_);
    inputSizeSpin_->setToolTip(tr("Features per synthetic sample (seed 004's input_size)."));
    samplesSpin_->setToolTip(tr("Synthetic samples in the training set, and in the test set."));

    deviceList_->setObjectName(QStringLiteral("deviceList"));
    deviceList_->setToolTip(tr("The global batch is split across the checked devices."));
    for (const dp::DeviceInfo& device : dp::available_devices()) {
        auto* item = new QListWidgetItem(
            QStringLiteral("%1 — %2")
                .arg(QString::fromStdString(device.id), QString::fromStdString(device.description)),
            deviceList_);
        item->setData(Qt::UserRole, QString::fromStdString(device.id));
        item->setToolTip(item->text());
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        item->setCheckState(Qt::Checked);
    }
    // Tall enough for a few devices; more scroll.
    const int rowHeight = std::max(deviceList_->sizeHintForRow(0), fontMetrics().height() + 4);
    deviceList_->setFixedHeight(rowHeight * std::clamp(deviceList_->count(), 1, 4)
                                + 2 * deviceList_->frameWidth() + 6);

    allreduceCombo_->setObjectName(QStringLiteral("allreduceCombo"));
    allreduceCombo_->addItem(tr("ring"), QStringLiteral("ring"));
    allreduceCombo_->addItem(tr("naive"), QStringLiteral("naive"));
    allreduceCombo_->setToolTip(tr("How replicas sum their gradients after each step: NCCL's ring "
                                   "(reduce-scatter + all-gather) or d2l's copy-to-device-0."));

    syncBnCheck_->setObjectName(QStringLiteral("syncBnCheck"));
    syncBnCheck_->setToolTip(
        tr("Compute BatchNorm statistics over the global batch, not each device's shard."));
    scaleCheck_->setObjectName(QStringLiteral("scaleCheck"));
    scaleCheck_->setToolTip(tr("Compare 1 vs N: the N-device run gets N times the batch size "
                               "and learning rate (the linear scaling rule, seed 000's 256/0.1 "
                               "vs 512/0.2); off: both runs use the same settings."));

    validationLabel_->setObjectName(QStringLiteral("validationLabel"));
    validationLabel_->setWordWrap(true);
    validationLabel_->setStyleSheet(QStringLiteral("color: #c62828;"));
    validationLabel_->hide();

    auto* modelBox = new QGroupBox(tr("Model"), this);
    auto* modelLayout = new QVBoxLayout(modelBox);
    modelLayout->addWidget(modelCombo_);
    modelLayout->addWidget(modelDescription_);

    auto* trainingBox = new QGroupBox(tr("Training"), this);
    auto* trainingForm = new QFormLayout(trainingBox);
    trainingForm->addRow(tr("Global batch"), batchSizeSpin_);
    trainingForm->addRow(tr("Learning rate"), learningRateSpin_);
    trainingForm->addRow(tr("Epochs"), epochsSpin_);
    trainingForm->addRow(tr("Seed"), seedSpin_);

    auto* dataBox = new QGroupBox(tr("Data"), this);
    dataBox->setLayout(dataForm_);
    dataForm_->addRow(tr("Dataset"), datasetCombo_);
    dataForm_->addRow(tr("Folder"), dataFolderRow_);
    dataForm_->addRow(tr("Features"), inputSizeSpin_);
    dataForm_->addRow(tr("Samples"), samplesSpin_);
    dataForm_->addRow(tr("Train samples"), trainSamplesSpin_);
    dataForm_->addRow(tr("Test samples"), testSamplesSpin_);

    auto* devicesBox = new QGroupBox(tr("Devices"), this);
    auto* devicesLayout = new QVBoxLayout(devicesBox);
    devicesLayout->addWidget(deviceList_);
    auto* allreduceRow = new QHBoxLayout;
    allreduceRow->addWidget(new QLabel(tr("All-reduce"), devicesBox));
    allreduceRow->addWidget(allreduceCombo_, 1);
    devicesLayout->addLayout(allreduceRow);
    devicesLayout->addWidget(syncBnCheck_);
    devicesLayout->addWidget(scaleCheck_);

    // The boxes keep their natural height; spare room goes below them.
    for (QGroupBox* box : {modelBox, trainingBox, dataBox, devicesBox})
        box->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(modelBox);
    layout->addWidget(trainingBox);
    layout->addWidget(dataBox);
    layout->addWidget(devicesBox);
    layout->addWidget(validationLabel_);
    layout->addStretch();

    setConfig(dp::TrainConfig{});

    connect(modelCombo_, &QComboBox::currentIndexChanged, this, [this] {
        showModelDescription();
        revalidate();
    });
    connect(datasetCombo_, &QComboBox::currentIndexChanged, this, [this] {
        showDatasetSettings();
        revalidate();
    });
    connect(dataFolderButton_, &QPushButton::clicked, this, &RunConfigPanel::chooseDataFolder);
    connect(dataFolderEdit_, &QLineEdit::textChanged, this, &RunConfigPanel::revalidate);
    for (QSpinBox* spin : {batchSizeSpin_, epochsSpin_, seedSpin_, inputSizeSpin_, samplesSpin_,
                           trainSamplesSpin_, testSamplesSpin_})
        connect(spin, &QSpinBox::valueChanged, this, &RunConfigPanel::revalidate);
    connect(learningRateSpin_, &QDoubleSpinBox::valueChanged, this, &RunConfigPanel::revalidate);
    connect(deviceList_, &QListWidget::itemChanged, this, &RunConfigPanel::revalidate);
    connect(allreduceCombo_, &QComboBox::currentIndexChanged, this, &RunConfigPanel::revalidate);
    connect(syncBnCheck_, &QCheckBox::toggled, this, &RunConfigPanel::revalidate);
    connect(scaleCheck_, &QCheckBox::toggled, this, &RunConfigPanel::configChanged);
}

dp::TrainConfig RunConfigPanel::config() const
{
    dp::TrainConfig config = hiddenSettings_;
    config.model = modelCombo_->currentData().toString().toStdString();
    config.batch_size = batchSizeSpin_->value();
    config.lr = static_cast<float>(learningRateSpin_->value());
    config.epochs = epochsSpin_->value();
    config.seed = std::uint64_t(seedSpin_->value());
    config.dataset = datasetCombo_->currentData().toString().toStdString();
    // The folder applies to the image sets; the synthetic one has none.
    config.data_dir = config.dataset == "random" ? std::string()
                                                 : dataFolderEdit_->text().trimmed().toStdString();
    config.input_size = inputSizeSpin_->value();
    config.samples = samplesSpin_->value();
    config.limit_train = trainSamplesSpin_->value();
    config.limit_test = testSamplesSpin_->value();
    // Listed explicitly even when all are checked, so the run records them.
    config.devices.clear();
    for (int row = 0; row < deviceList_->count(); ++row) {
        const QListWidgetItem* item = deviceList_->item(row);
        if (item->checkState() == Qt::Checked)
            config.devices.push_back(item->data(Qt::UserRole).toString().toStdString());
    }
    config.allreduce = allreduceCombo_->currentData().toString().toStdString();
    config.sync_bn = syncBnCheck_->isChecked();
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
            QSignalBlocker(seedSpin_),         QSignalBlocker(datasetCombo_),
            QSignalBlocker(dataFolderEdit_),   QSignalBlocker(inputSizeSpin_),
            QSignalBlocker(samplesSpin_),      QSignalBlocker(trainSamplesSpin_),
            QSignalBlocker(testSamplesSpin_),  QSignalBlocker(deviceList_),
            QSignalBlocker(allreduceCombo_),   QSignalBlocker(syncBnCheck_)};
        modelCombo_->setCurrentIndex(modelCombo_->findData(QString::fromStdString(config.model)));
        batchSizeSpin_->setValue(config.batch_size);
        learningRateSpin_->setValue(config.lr);
        epochsSpin_->setValue(config.epochs);
        seedSpin_->setValue(int(std::min<std::uint64_t>(config.seed, 2'000'000'000)));
        datasetCombo_->setCurrentIndex(
            std::max(datasetCombo_->findData(QString::fromStdString(config.dataset)), 0));
        dataFolderEdit_->setText(QString::fromStdString(config.data_dir));
        inputSizeSpin_->setValue(config.input_size);
        samplesSpin_->setValue(config.samples);
        trainSamplesSpin_->setValue(config.limit_train);
        testSamplesSpin_->setValue(config.limit_test);
        // No devices means the whole machine, as in the engine.
        for (int row = 0; row < deviceList_->count(); ++row) {
            QListWidgetItem* item = deviceList_->item(row);
            const std::string id = item->data(Qt::UserRole).toString().toStdString();
            const bool checked = config.devices.empty()
                || std::find(config.devices.begin(), config.devices.end(), id)
                    != config.devices.end();
            item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
        }
        // The combo offers only the engine's strategies; anything else shows as the first.
        allreduceCombo_->setCurrentIndex(
            std::max(allreduceCombo_->findData(QString::fromStdString(config.allreduce)), 0));
        syncBnCheck_->setChecked(config.sync_bn);
    }
    showModelDescription();
    showDatasetSettings();
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

int RunConfigPanel::checkedDeviceCount() const
{
    return int(config().devices.size());
}

void RunConfigPanel::revalidate()
{
    const bool wasValid = isValid();
    validationError_.clear();
    const dp::TrainConfig current = config();
    try {
        // Empty means "every device" to the engine; here it means none checked.
        if (current.devices.empty())
            throw dp::Error("choose at least one device");
        dp::validate(current);
    } catch (const dp::Error& e) {
        validationError_ = engineMessage(e.what());
    }
    validationLabel_->setText(validationError_);
    validationLabel_->setVisible(!isValid());
    if (isValid() != wasValid)
        emit validityChanged(isValid());
    emit configChanged();
}

void RunConfigPanel::showModelDescription()
{
    const int index = modelCombo_->currentIndex();
    const QString description =
        index < 0 ? QString() : QString::fromStdString(dp::model_registry()[index].description);
    modelDescription_->setText(description);
    modelDescription_->setVisible(!description.isEmpty());
}

void RunConfigPanel::showDatasetSettings()
{
    const QString dataset = datasetCombo_->currentData().toString();
    const bool synthetic = dataset == QLatin1String("random");
    dataForm_->setRowVisible(dataFolderRow_, !synthetic);
    dataForm_->setRowVisible(inputSizeSpin_, synthetic);
    dataForm_->setRowVisible(samplesSpin_, synthetic);
    dataForm_->setRowVisible(trainSamplesSpin_, !synthetic);
    dataForm_->setRowVisible(testSamplesSpin_, !synthetic);
    // The full default path does not fit the field; the tooltip has it.
    const QString defaultFolder = QString::fromStdString(dp::default_fashion_mnist_dir().string());
    const bool fashion = dataset == QLatin1String("fashion-mnist");
    dataFolderEdit_->setPlaceholderText(fashion ? tr("the installed copy") : tr("required"));
    dataFolderEdit_->setToolTip(
        fashion ? tr("Empty: %1. Or a folder with the four IDX files.").arg(defaultFolder)
                : tr("The folder with the four IDX files (train/t10k images and labels)."));
}

void RunConfigPanel::chooseDataFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Folder with MNIST-format IDX files"), dataFolderEdit_->text());
    if (!folder.isEmpty())
        dataFolderEdit_->setText(folder);
}
