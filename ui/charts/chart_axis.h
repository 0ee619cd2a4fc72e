#pragma once

#include <QCategoryAxis>

// A chart axis on a linear or a log10 scale that labels round numbers: steps
// of 1, 2 or 5 times a power of ten on a linear scale; 1, 2, 5 per decade, or
// whole decades when those crowd, on a log scale. On a log scale the lines
// plot position(value) = log10(value), and labels name the values.
//
// It is a QCategoryAxis, labelled on values, so that the labels can be any
// text at any position: Qt's QLogValueAxis labels only whole decades, which
// leaves a loss between 0.3 and 2.4 with the single label 1.
class ChartAxis : public QCategoryAxis {
    Q_OBJECT

public:
    explicit ChartAxis(QObject* parent = nullptr);

    // The smallest of 1, 2 or 5 times a power of ten that cuts `span` into at
    // most `maxIntervals` intervals.
    static double niceStep(double span, int maxIntervals);

    void setLogScale(bool log);
    bool isLogScale() const { return log_; }
    // Where a value is plotted, and back; non-positive values have no place
    // on a log scale (NaN).
    double position(double value) const;
    double value(double position) const;

    // Values the axis never extends past when it fits data (accuracy is in
    // [0, 1]); unbounded by default.
    void setBounds(double min, double max);
    // Ticks on whole numbers only (epochs, devices), however short the axis.
    void setWholeNumberTicks(bool wholeNumbers);
    // The most labels it shows: fewer for short axes and large fonts.
    void setMaxTicks(int ticks);

    // Shows the values [low, high] with `headroom` (a fraction of the span)
    // on both sides, on a linear scale widened to the next labels.
    void fit(double low, double high, double headroom);
    // Shows exactly the positions [min, max] (a zoom or a shared range).
    void showPositions(double min, double max);

private:
    void relabel();

    bool log_ = false;
    bool wholeNumbers_ = false;
    int maxTicks_ = 6;
    double lowerBound_;
    double upperBound_;
};
