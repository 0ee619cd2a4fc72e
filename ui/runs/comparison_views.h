#pragma once

#include <QObject>

#include <string>

class ChartBoard;
class ComparisonSummaryCard;
class RunsTableModel;
class ScalingPredictionPage;

// Keeps the views of how runs compare in step with the runs table: the
// speedup chart and its waterfall, the Scaling tab's prediction from the
// checked runs, and the summary card of a comparison that just ended.
class ComparisonViews : public QObject {
    Q_OBJECT

public:
    ComparisonViews(const RunsTableModel* runs, ChartBoard* charts, ScalingPredictionPage* scalingPage,
                    ComparisonSummaryCard* summaryCard, QObject* parent = nullptr);

    // The summary card for comparison `group`, whose last run just ended.
    void showComparisonSummary(const std::string& group);

private:
    void updateSpeedupChart();
    void updateScalingPrediction();

    const RunsTableModel* runs_;
    ChartBoard* charts_;
    ScalingPredictionPage* scalingPage_;
    ComparisonSummaryCard* summaryCard_;
};
