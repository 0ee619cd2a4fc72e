#pragma once

#include <QFrame>

#include <vector>

#include "run_comparison.h"
#include "record/run_record.h"

class QLabel;
class QToolButton;

// The card shown above the charts when a comparison's last run ends: what a
// class or a user asks first ("how much faster, and is it as accurate?"),
// without reading the table: speedup, scaling efficiency, each run's test
// accuracy, the N-vs-1 parameter drift and, where the runs kept step
// timings, the verdict on where the N-device run's time goes. Closed with its
// × button. It starts collapsed to one line, the verdict (how much faster,
// with its range), so that the charts keep the screen; its ▸ button opens
// the rest and ▾ folds it again.
class ComparisonSummaryCard : public QFrame {
    Q_OBJECT

public:
    explicit ComparisonSummaryCard(QWidget* parent = nullptr);

    // The comparison's runs (its 1-device run first) with their comparisons.
    void showComparison(const std::vector<dp::RunRecord>& runs,
                        const std::vector<RunComparison>& comparisons);
    QString text() const;
    // The one line a collapsed card shows (plain text).
    QString verdict() const { return verdict_; }
    void setCollapsed(bool collapsed);
    bool isCollapsed() const { return collapsed_; }

    // The card's text (rich text), for the runs of one comparison.
    static QString summaryText(const std::vector<dp::RunRecord>& runs,
                               const std::vector<RunComparison>& comparisons);
    // Its one line: "LeNet on 1 vs 2 devices: 1.85× faster on 2".
    static QString verdictText(const std::vector<dp::RunRecord>& runs,
                               const std::vector<RunComparison>& comparisons);

protected:
    // The verdict line elided to the card's width, whole in its tooltip.
    void resizeEvent(QResizeEvent* event) override;

private:
    void showVerdictLine();

    QLabel* text_;
    QLabel* verdictLine_;  // shown instead of text_ while collapsed
    QToolButton* collapse_;
    QString verdict_;
    bool collapsed_ = false;
};
