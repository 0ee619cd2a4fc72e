#pragma once

#include <QFrame>

#include <vector>

#include "run_comparison.h"
#include "record/run_record.h"

class QLabel;

// The card shown above the charts when a comparison's last run ends: what a
// class or a user asks first ("how much faster, and is it as accurate?"),
// without reading the table: speedup, scaling efficiency, each run's test
// accuracy, the N-vs-1 parameter drift and, where the runs kept step
// timings, the verdict on where the N-device run's time goes. Closed with its
// × button.
class ComparisonSummaryCard : public QFrame {
    Q_OBJECT

public:
    explicit ComparisonSummaryCard(QWidget* parent = nullptr);

    // The comparison's runs (its 1-device run first) with their comparisons.
    void showComparison(const std::vector<dp::RunRecord>& runs,
                        const std::vector<RunComparison>& comparisons);
    QString text() const;

    // The card's text (rich text), for the runs of one comparison.
    static QString summaryText(const std::vector<dp::RunRecord>& runs,
                               const std::vector<RunComparison>& comparisons);

private:
    QLabel* text_;
};
