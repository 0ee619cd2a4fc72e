#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <vector>

class EpochMetricChart;
class RunsTableModel;

// The epoch charts while the runs table groups seeds: each seed group with
// two or more runs on a chart is drawn there as its median and min-max band
// (EpochMetricChart::showSeedGroup) in its first run's colour, in place of
// the members' own lines; ungrouped, the members' lines come back.
class SeedGroupCharts : public QObject {
    Q_OBJECT

public:
    // Follows `runs` and draws on every EpochMetricChart under `board`.
    SeedGroupCharts(const RunsTableModel* runs, QWidget* board, QObject* parent = nullptr);

    // Draws the groups anew from the table's grouping and checks.
    void redraw();

    // The key of the group whose first run is `firstRunId`, on every chart.
    static QString groupKey(const std::string& firstRunId);

private:
    void undraw();

    const RunsTableModel* runs_;
    std::vector<QPointer<EpochMetricChart>> charts_;
    struct Drawn {
        QPointer<EpochMetricChart> chart;
        QString groupKey;
    };
    std::vector<Drawn> drawn_;
};
