#pragma once

#include <QChartView>
#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>

#include <vector>

class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

// Predicted speedup against the device count on a log2 axis from 1 to 64
// (scaling/scaling_predictor.h), beside the ideal y = x, with measured
// speedups drawn as markers in their runs' colours.
class ScalingPredictionChart : public QChartView {
    Q_OBJECT

public:
    struct MeasuredSpeedup {
        QString name;  // the run's label
        QColor color;
        int devices = 0;
        double speedup = 0;
    };

    explicit ScalingPredictionChart(QWidget* parent = nullptr);

    // The predicted line: (devices, speedup) points in ascending devices.
    void setPrediction(const QList<QPointF>& points, const QString& name);
    void setMeasured(const std::vector<MeasuredSpeedup>& measured);

    const QLineSeries* predictedLine() const { return predicted_; }
    const QLineSeries* idealLine() const { return ideal_; }
    int measuredCount() const { return int(measured_.size()); }

private:
    void fitY();

    QLineSeries* predicted_;
    QLineSeries* ideal_;
    std::vector<QScatterSeries*> measured_;
    QLogValueAxis* xAxis_;
    QValueAxis* yAxis_;
};
