#include "run_config_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/error.h"
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

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(modelBox);
    layout->addWidget(trainingBox);
    layout->addWidget(dataBox);
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
    modelCombo_->setCurrentIndex(modelCombo_->findData(QString::fromStdString(config.model)));
    batchSizeSpin_->setValue(config.batch_size);
    learningRateSpin_->setValue(config.lr);
    epochsSpin_->setValue(config.epochs);
    trainSamplesSpin_->setValue(config.limit_train);
    testSamplesSpin_->setValue(config.limit_test);
    showModelDescription();
    revalidate();
}

void RunConfigPanel::revalidate()
{
    const bool wasValid = isValid();
    validationError_.clear();
    try {
        dp::validate(config());
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
