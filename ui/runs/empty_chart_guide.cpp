#include "empty_chart_guide.h"

#include <QChartView>

#include "dataset_metadata.h"
#include "empty_chart_text.h"
#include "run_config_panel.h"
#include "runs_table_model.h"

#include "models/model_info.h"

namespace {

QString modelTitle(const std::string& name)
{
    for (const dp::ModelInfo& model : dp::model_registry())
        if (model.name == name)
            return QString::fromStdString(model.title);
    return QString::fromStdString(name);
}

QString dataTitle(const std::string& dataset)
{
    if (dataset == "random")
        return EmptyChartGuide::tr("synthetic data");
    const QString title = datasetMetadata(dataset).title;
    return title.isEmpty() ? EmptyChartGuide::tr("the MNIST-format data") : title;
}

}  // namespace

EmptyChartGuide::EmptyChartGuide(const RunsTableModel* runs, const RunConfigPanel* settings,
                                 QChartView* chart, QObject* parent, TrainingTimeProbe* sharedProbe)
    : QObject(parent),
      runs_(runs),
      settings_(settings),
      text_(new EmptyChartText(chart)),
      ownProbe_(sharedProbe ? nullptr : std::make_unique<TrainingTimeProbe>()),
      probe_(sharedProbe ? sharedProbe : ownProbe_.get())
{
    probeDelay_.setSingleShot(true);
    probeDelay_.setInterval(kProbeDelayMs);
    connect(&probeDelay_, &QTimer::timeout, this, [this] {
        if (runs_->rowCount() == 0 && settings_->isValid())
            probe_->measure(settings_->config());
    });
    connect(probe_, &TrainingTimeProbe::measured, this, &EmptyChartGuide::update);
    connect(settings, &RunConfigPanel::configChanged, this, &EmptyChartGuide::update);
    connect(settings, &RunConfigPanel::validityChanged, this, &EmptyChartGuide::update);
    connect(runs, &QAbstractItemModel::rowsInserted, this, &EmptyChartGuide::update);
    connect(runs, &QAbstractItemModel::rowsRemoved, this, &EmptyChartGuide::update);
    connect(runs, &QAbstractItemModel::modelReset, this, &EmptyChartGuide::update);
    connect(runs, &RunsTableModel::checkedChanged, this, &EmptyChartGuide::update);
    update();
}

QString EmptyChartGuide::message() const
{
    return text_->isHidden() ? QString() : text_->text();
}

QString EmptyChartGuide::startMessage() const
{
    const dp::TrainConfig config = settings_->config();
    return EmptyChartText::startTraining(modelTitle(config.model), dataTitle(config.dataset),
                                         probe_->estimatedSeconds(config));
}

void EmptyChartGuide::update()
{
    if (runs_->rowCount() > 0) {
        // A run needs the cores the probe would take, and a time it measures itself.
        // (A shared probe is its owner's to stop: it may be timing a comparison.)
        probeDelay_.stop();
        if (ownProbe_)
            ownProbe_->stop();
        text_->setMessage(runs_->checkedRecords().empty() ? EmptyChartText::checkRuns() : QString());
        return;
    }
    text_->setMessage(startMessage());
    if (settings_->isValid() && !probe_->isKnown(settings_->config()))
        probeDelay_.start();
}
