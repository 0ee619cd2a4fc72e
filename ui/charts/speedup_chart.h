#pragma once

#include <QColor>
#include <QString>

#include <vector>

#include "run_chart_view.h"

// Measured speedup against the device count, a line per baseline (runs of one
// workload compared with its 1-device run), beside the ideal line y = x.
class SpeedupChart : public RunChartView {
    Q_OBJECT

public:
    struct Measurement {
        QString group;  // the baseline's key: one line per baseline
        QString groupName;
        QColor color;
        int devices = 0;
        double speedup = 0;

        bool operator==(const Measurement&) const = default;
    };

    explicit SpeedupChart(QWidget* parent = nullptr);

    void setMeasurements(std::vector<Measurement> measurements);
    int measurementCount() const { return int(shown_.size()); }

private:
    std::vector<Measurement> shown_;
};
