#pragma once

#include <QChartView>

class QLineSeries;
class QValueAxis;

// Test accuracy per epoch, one line per run. Earlier runs stay on the chart
// so consecutive runs can be compared.
class AccuracyChart : public QChartView {
    Q_OBJECT

public:
    explicit AccuracyChart(QWidget* parent = nullptr);

    // Adds an empty line named `name` that addPoint() extends.
    void startRun(const QString& name, int epochs);
    void addPoint(int epoch, double testAccuracy);

    // The line of the latest run; null before the first run.
    const QLineSeries* currentRunSeries() const { return currentRun_; }

private:
    void showEpochs(int epochs);

    QValueAxis* epochAxis_;
    QValueAxis* accuracyAxis_;
    QLineSeries* currentRun_ = nullptr;
    int shownEpochs_ = 0;
};
