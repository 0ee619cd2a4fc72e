#pragma once

#include <QColor>
#include <QString>

#include <vector>

#include "run_chart_view.h"

// Measured speedup against the device count: each N-device run (or each
// repeated comparison's median, with its range as an error bar) as a segment
// from (1, 1) in its own colour, named for its run; beside the ideal line
// y = x and, where devices took turns on fewer cores than devices, the
// ceiling those cores allow.
class SpeedupChart : public RunChartView {
    Q_OBJECT

public:
    struct Measurement {
        QString key;   // the run's id, or a repeated comparison's group and device count
        QString name;  // the run's label, as the legend names it
        QColor color;  // the N-device run's
        int devices = 0;
        double speedup = 0;
        double min = 0, max = 0;  // the repeats' range; both 0 for one run
        double ceiling = 0;       // the cores' ceiling; 0 for none

        bool operator==(const Measurement&) const = default;
    };

    explicit SpeedupChart(QWidget* parent = nullptr);

    void setMeasurements(std::vector<Measurement> measurements);
    int measurementCount() const { return int(shown_.size()); }

private:
    void drawCeiling(int maxDevices);

    std::vector<Measurement> shown_;
};
