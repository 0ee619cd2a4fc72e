#include "comparison_views.h"

#include <algorithm>

#include "chart_board.h"
#include "comparison_summary_card.h"
#include "runs_table_model.h"
#include "scaling_prediction_page.h"
#include "speedup_chart.h"

ComparisonViews::ComparisonViews(const RunsTableModel* runs, ChartBoard* charts, ScalingPredictionPage* scalingPage,
                                 ComparisonSummaryCard* summaryCard, QObject* parent)
    : QObject(parent), runs_(runs), charts_(charts), scalingPage_(scalingPage), summaryCard_(summaryCard)
{
    connect(runs_, &RunsTableModel::comparisonsChanged, this, &ComparisonViews::updateSpeedupChart);
    connect(runs_, &RunsTableModel::checkedChanged, this, &ComparisonViews::updateScalingPrediction);
    connect(runs_, &RunsTableModel::comparisonsChanged, this, &ComparisonViews::updateScalingPrediction);
}

void ComparisonViews::showComparisonSummary(const std::string& group)
{
    std::vector<dp::RunRecord> runs;
    for (int row = 0; row < runs_->rowCount(); ++row)
        if (runs_->record(row).comparison_group == group)
            runs.push_back(runs_->record(row));
    summaryCard_->showComparison(runs, compareRuns(runs, runs_->targetAccuracy()));
}

void ComparisonViews::updateSpeedupChart()
{
    // Each N-device run in its own colour; a repeated comparison once, at its
    // median with its range, in the colour and name of its last repeat.
    std::vector<SpeedupChart::Measurement> measurements;
    for (int row = 0; row < runs_->rowCount(); ++row) {
        const std::optional<RunComparison> comparison = runs_->comparison(row);
        const dp::RunRecord& record = runs_->record(row);
        if (!comparison || !comparison->speedup || !comparison->baseline || record.device_count() < 2)
            continue;
        SpeedupChart::Measurement measurement{QString::fromStdString(record.id),
                                              runs_->displayLabel(row),
                                              runs_->color(row),
                                              record.device_count(),
                                              *comparison->speedup,
                                              0,
                                              0,
                                              comparison->ceiling.value_or(0)};
        if (const std::optional<dp::RepeatedSpeedup>& repeated = comparison->repeated) {
            measurement.key = QStringLiteral("%1/%2").arg(QString::fromStdString(record.comparison_group))
                                  .arg(record.device_count());
            measurement.name = tr("%1 (median of %2 repeats)").arg(measurement.name).arg(repeated->repeats);
            measurement.speedup = repeated->median;
            measurement.min = repeated->min;
            measurement.max = repeated->max;
            const auto same = std::find_if(measurements.begin(), measurements.end(),
                                           [&](const auto& m) { return m.key == measurement.key; });
            if (same != measurements.end()) {
                *same = measurement;  // the later repeat names it
                continue;
            }
        }
        measurements.push_back(measurement);
    }
    charts_->setSpeedupMeasurements(std::move(measurements));

    // The waterfall shows one comparison: the newest checked N-device run
    // whose baseline kept step timings too (past runs' records keep them).
    for (int row = runs_->rowCount() - 1; row >= 0; --row) {
        const std::optional<RunComparison> comparison = runs_->comparison(row);
        if (comparison && comparison->gap) {
            charts_->setSpeedupGap(comparison->gap, runs_->displayLabel(row),
                                   runs_->color(row));
            return;
        }
    }
    charts_->setSpeedupGap(std::nullopt);
}

// The Scaling tab predicts from the checked runs and marks them.
void ComparisonViews::updateScalingPrediction()
{
    std::vector<std::pair<dp::RunRecord, QColor>> runs;
    for (const dp::RunRecord& record : runs_->checkedRecords())
        runs.emplace_back(record, runs_->color(runs_->rowOf(record.id)));
    scalingPage_->setRuns(runs);
}
