#include "seed_group_charts.h"

#include <QWidget>

#include "epoch_metric_chart.h"
#include "runs_table_model.h"

SeedGroupCharts::SeedGroupCharts(const RunsTableModel* runs, QWidget* board, QObject* parent)
    : QObject(parent), runs_(runs)
{
    for (EpochMetricChart* chart : board->findChildren<EpochMetricChart*>())
        charts_.emplace_back(chart);
    connect(runs, &RunsTableModel::seedGroupingChanged, this, &SeedGroupCharts::redraw);
    connect(runs, &RunsTableModel::checkedChanged, this, &SeedGroupCharts::redraw);
    connect(runs, &RunsTableModel::comparisonsChanged, this, &SeedGroupCharts::redraw);
    connect(runs, &QAbstractItemModel::rowsRemoved, this, &SeedGroupCharts::redraw);
    redraw();
}

QString SeedGroupCharts::groupKey(const std::string& firstRunId)
{
    return QStringLiteral("seeds:") + QString::fromStdString(firstRunId);
}

void SeedGroupCharts::undraw()
{
    // The members' lines come back; the legend's hidden runs stay hidden.
    for (const Drawn& drawn : drawn_) {
        if (drawn.chart)
            drawn.chart->hideSeedGroup(drawn.groupKey);
    }
    drawn_.clear();
}

void SeedGroupCharts::redraw()
{
    undraw();
    if (!runs_->groupSeeds())
        return;
    for (const std::vector<int>& group : runs_->seedGroups()) {
        for (const QPointer<EpochMetricChart>& chart : charts_) {
            if (!chart)
                continue;
            // The group's checked runs this chart draws (the drift chart only some).
            std::vector<dp::RunRecord> members;
            for (int row : group) {
                const dp::RunRecord& record = runs_->record(row);
                if (runs_->isChecked(row) && chart->lineOf(record.id, 0))
                    members.push_back(record);
            }
            if (members.size() < 2)
                continue;
            const QString key = groupKey(runs_->record(group.front()).id);
            chart->showSeedGroup(key,
                                 runs_->data(runs_->index(group.front(), RunsTableModel::RunColumn))
                                         .toString(),
                                 members, runs_->color(group.front()));
            drawn_.push_back({chart, key});
        }
    }
}
