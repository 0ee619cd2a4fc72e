#pragma once

#include <QList>
#include <QWidget>

#include <optional>
#include <vector>

#include "study/study_table.h"

// A study's scaling efficiency (speedup / devices over the baseline's) as a
// heat map: device counts across, batch sizes down, each cell coloured from
// red (0%) through yellow to green (100% and above) and labelled with its
// percentage. A study of several learning rates shows one lr's at a time
// (the first, until another is picked; the title says which).
class EfficiencyHeatMap : public QWidget {
    Q_OBJECT

public:
    explicit EfficiencyHeatMap(QWidget* parent = nullptr);

    void setRows(const std::vector<dp::StudyRow>& rows);

    // The rows' learning rates, in the order the rows give them.
    const QList<float>& learningRates() const { return learningRates_; }
    // Shows the cells of `lr`, one of learningRates(); another is ignored.
    void showLearningRate(float lr);
    float shownLearningRate() const { return shownLr_; }

    const QList<int>& deviceCounts() const { return deviceCounts_; }  // the columns, ascending
    const QList<int>& batchSizes() const { return batchSizes_; }      // the rows, ascending
    // The efficiency a cell shows; none where the grid has no such point or
    // it has no baseline.
    std::optional<double> efficiencyAt(int devices, int batchSize) const;
    // What the map is of: "Scaling efficiency, lr 0.2".
    QString title() const { return title_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void showRowsOfShownLr();

    std::vector<dp::StudyRow> rows_;  // every lr's
    QList<float> learningRates_;
    float shownLr_ = 0;
    QList<int> deviceCounts_, batchSizes_;
    std::vector<dp::StudyRow> shown_;  // the rows of the lr shown
    QString title_;
};
