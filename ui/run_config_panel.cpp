#include "run_config_panel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/error.h"
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

}  // namespace

RunConfigPanel::RunConfigPanel(QWidget* parent)
    : QWidget(parent),
      modelCombo_(new QComboBox(this)),
      modelDescription_(new QLabel(this)),
      batchSizeSpin_(new QSpinBox(this)),
      learningRateSpin_(new QDoubleSpinBox(this)),
      epochsSpin_(new QSpinBox(this)),
      trainSamplesSpin_(createSampleLimitSpin(QStringLiteral("trainSamplesSpin"), this)),
      testSamplesSpin_(createSampleLimitSpin(QStringLiteral("testSamplesSpin"), this)),
      deviceList_(new QListWidget(this)),
      allreduceCombo_(new QComboBox(this)),
      syncBnCheck_(new QCheckBox(tr("Synchronized BatchNorm"), this)),
      validationLabel_(new QLabel(this))
{
    modelCombo_->setObjectName(QStringLiteral("modelCombo"));
    for (const dp::ModelInfo& model : dp::model_registry())
        modelCombo_->addItem(QStringLiteral("%1  (%2 parameters)")
                                 .arg(QString::fromStdString(model.name))
                                 .arg(QLocale().toString(qulonglong(model.parameters))),
                             QString::fromStdString(model.name));
    modelDescription_->setWordWrap(true);
    modelDescription_->setForegroundRole(QPalette::PlaceholderText);

    batchSizeSpin_->setObjectName(QStringLiteral("batchSizeSpin"));
    batchSizeSpin_->setRange(1, 65536);

    learningRateSpin_->setObjectName(QStringLiteral("learningRateSpin"));
    // Zero is reachable on purpose: validation explains why it is refused.
    learningRateSpin_->setRange(0.0, 10.0);
    learningRateSpin_->setDecimals(4);
    learningRateSpin_->setSingleStep(0.01);

    epochsSpin_->setObjectName(QStringLiteral("epochsSpin"));
    epochsSpin_->setRange(1, 1000);

    deviceList_->setObjectName(QStringLiteral("deviceList"));
    deviceList_->setToolTip(tr("The global batch is split across the checked devices."));
    for (const dp::DeviceInfo& device : dp::available_devices()) {
        auto* item = new QListWidgetItem(
            QStringLiteral("%1 — %2")
                .arg(QString::fromStdString(device.id), QString::fromStdString(device.description)),
            deviceList_);
        item->setData(Qt::UserRole, QString::fromStdString(device.id));
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
    allreduceCombo_->setToolTip(tr("How replicas average their gradients after each step."));

    syncBnCheck_->setObjectName(QStringLiteral("syncBnCheck"));
    syncBnCheck_->setToolTip(
        tr("Compute BatchNorm statistics over the global batch, not each device's shard."));

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
    trainingForm->addRow(tr("Batch size"), batchSizeSpin_);
    trainingForm->addRow(tr("Learning rate"), learningRateSpin_);
    trainingForm->addRow(tr("Epochs"), epochsSpin_);

    auto* dataBox = new QGroupBox(tr("Data"), this);
    auto* dataForm = new QFormLayout(dataBox);
    dataForm->addRow(tr("Train samples"), trainSamplesSpin_);
    dataForm->addRow(tr("Test samples"), testSamplesSpin_);

    auto* devicesBox = new QGroupBox(tr("Devices"), this);
    auto* devicesLayout = new QVBoxLayout(devicesBox);
    devicesLayout->addWidget(deviceList_);
    auto* devicesForm = new QFormLayout;
    devicesForm->addRow(tr("All-reduce"), allreduceCombo_);
    devicesLayout->addLayout(devicesForm);
    devicesLayout->addWidget(syncBnCheck_);

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
    for (QSpinBox* spin : {batchSizeSpin_, epochsSpin_, trainSamplesSpin_, testSamplesSpin_})
        connect(spin, &QSpinBox::valueChanged, this, &RunConfigPanel::revalidate);
    connect(learningRateSpin_, &QDoubleSpinBox::valueChanged, this, &RunConfigPanel::revalidate);
    connect(deviceList_, &QListWidget::itemChanged, this, &RunConfigPanel::revalidate);
    connect(allreduceCombo_, &QComboBox::currentIndexChanged, this, &RunConfigPanel::revalidate);
    connect(syncBnCheck_, &QCheckBox::toggled, this, &RunConfigPanel::revalidate);
}

dp::TrainConfig RunConfigPanel::config() const
{
    dp::TrainConfig config = hiddenSettings_;
    config.model = modelCombo_->currentData().toString().toStdString();
    config.batch_size = batchSizeSpin_->value();
    config.lr = static_cast<float>(learningRateSpin_->value());
    config.epochs = epochsSpin_->value();
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
    // Signals would revalidate once per widget against half-applied settings.
    const QSignalBlocker blockModel(modelCombo_);
    const QSignalBlocker blockBatchSize(batchSizeSpin_);
    const QSignalBlocker blockLearningRate(learningRateSpin_);
    const QSignalBlocker blockEpochs(epochsSpin_);
    const QSignalBlocker blockTrainSamples(trainSamplesSpin_);
    const QSignalBlocker blockTestSamples(testSamplesSpin_);
    const QSignalBlocker blockDevices(deviceList_);
    const QSignalBlocker blockAllreduce(allreduceCombo_);
    const QSignalBlocker blockSyncBn(syncBnCheck_);
    modelCombo_->setCurrentIndex(modelCombo_->findData(QString::fromStdString(config.model)));
    batchSizeSpin_->setValue(config.batch_size);
    learningRateSpin_->setValue(config.lr);
    epochsSpin_->setValue(config.epochs);
    trainSamplesSpin_->setValue(config.limit_train);
    testSamplesSpin_->setValue(config.limit_test);
    // No devices means the whole machine, as in the engine.
    for (int row = 0; row < deviceList_->count(); ++row) {
        QListWidgetItem* item = deviceList_->item(row);
        const std::string id = item->data(Qt::UserRole).toString().toStdString();
        const bool checked = config.devices.empty()
            || std::find(config.devices.begin(), config.devices.end(), id) != config.devices.end();
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
    // The combo offers only the engine's strategies; anything else shows as the first.
    const int allreduceIndex = allreduceCombo_->findData(QString::fromStdString(config.allreduce));
    allreduceCombo_->setCurrentIndex(std::max(allreduceIndex, 0));
    syncBnCheck_->setChecked(config.sync_bn);
    showModelDescription();
    revalidate();
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
        validationError_ = QString::fromStdString(e.what());
    }
    validationLabel_->setText(validationError_);
    validationLabel_->setVisible(!isValid());
    if (isValid() != wasValid)
        emit validityChanged(isValid());
}

void RunConfigPanel::showModelDescription()
{
    const int index = modelCombo_->currentIndex();
    const QString description =
        index < 0 ? QString() : QString::fromStdString(dp::model_registry()[index].description);
    modelDescription_->setText(description);
    modelDescription_->setVisible(!description.isEmpty());
}
