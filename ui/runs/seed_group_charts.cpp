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
    for (const Drawn& drawn : drawn_) {
        if (!drawn.chart)
            continue;
        drawn.chart->hideSeedGroup(drawn.groupKey);
        for (const QString& member : drawn.memberKeys)
            drawn.chart->setRunHidden(member, false);
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
            Drawn drawn{chart, groupKey(runs_->record(group.front()).id), {}};
            for (int row : group) {
                const dp::RunRecord& record = runs_->record(row);
                if (runs_->isChecked(row) && chart->lineOf(record.id, 0)) {
                    members.push_back(record);
                    drawn.memberKeys.push_back(QString::fromStdString(record.id));
                }
            }
            if (members.size() < 2)
                continue;
            chart->showSeedGroup(drawn.groupKey,
                                 runs_->data(runs_->index(group.front(), RunsTableModel::RunColumn))
                                         .toString(),
                                 members, runs_->color(group.front()));
            for (const QString& member : drawn.memberKeys)
                chart->setRunHidden(member, true);
            drawn_.push_back(std::move(drawn));
        }
    }
}
