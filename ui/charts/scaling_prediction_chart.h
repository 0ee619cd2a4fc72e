#pragma once

#include <QChartView>
#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>

#include <vector>

class QAreaSeries;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

// Predicted speedup against the device count on a log2 axis from 1 to 64
// (scaling/scaling_predictor.h), beside the ideal y = x, with measured
// speedups drawn as black-bordered diamonds in their runs' colours, each
// named for the run and the prediction's error there (comparisonText: the
// page lists them beside the chart, the legend keeps to the two lines), and
// an optional shaded band: the spread of the prediction over the link's
// probes.
class ScalingPredictionChart : public QChartView {
    Q_OBJECT

public:
    struct MeasuredSpeedup {
        QString name;  // the run's label
        QColor color;
        int devices = 0;
        double speedup = 0;
        double predicted = 0;  // the predicted line's speedup at `devices`
        // The predicted epoch's error against the measured one, as
        // dp-train --predict prints it: (predicted - measured) / measured.
        double timeError() const { return speedup / predicted - 1; }
        // "two (2 devices): measured 0.73x, predicted 1.05x, time error -30%"
        QString comparisonText() const;
    };

    explicit ScalingPredictionChart(QWidget* parent = nullptr);
    // "1 device", "2 devices": what the legend and the page call a count.
    static QString devicesText(int devices);

    // The predicted line: (devices, speedup) points in ascending devices.
    void setPrediction(const QList<QPointF>& points, const QString& name);
    void setMeasured(const std::vector<MeasuredSpeedup>& measured);
    // The ideal line's legend entry: what ideal means for the scaling shown.
    void setIdealName(const QString& name);
    // The band between `low` and `high` (same device counts as the
    // prediction); empty lists hide it.
    void setSpread(const QList<QPointF>& low, const QList<QPointF>& high);

    const QLineSeries* predictedLine() const { return predicted_; }
    const QLineSeries* idealLine() const { return ideal_; }
    const QAreaSeries* spreadBand() const { return spread_; }
    int measuredCount() const { return int(measured_.size()); }
    const std::vector<QScatterSeries*>& measuredSeries() const { return measured_; }

private:
    void fitY();

    QLineSeries* predicted_;
    QLineSeries* ideal_;
    QLineSeries* spreadLow_;
    QLineSeries* spreadHigh_;
    QAreaSeries* spread_;
    std::vector<QScatterSeries*> measured_;
    QLogValueAxis* xAxis_;
    QValueAxis* yAxis_;
};
