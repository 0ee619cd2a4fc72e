#pragma once

#include <QChartView>
#include <QColor>
#include <QHash>

#include "x_axis_mode.h"

class QLineSeries;
class QValueAxis;

// A chart with a title, value axes and one line per key (a run, or a
// comparison group), legend at the bottom. Subclasses fill the lines; this
// keeps the axes around the data and scales fonts for presenter mode.
class RunChartView : public QChartView {
    Q_OBJECT

public:
    RunChartView(const QString& title, const QString& yTitle, QWidget* parent = nullptr);

    // 1 is normal; presenter mode enlarges titles, labels and the legend.
    void setFontScale(double scale);

    // The line of `key`; null if it has none.
    const QLineSeries* lineOf(const QString& key) const { return lines_.value(key); }
    int lineCount() const { return int(lines_.size()); }

protected:
    QLineSeries* existingLine(const QString& key) const { return lines_.value(key); }
    QLineSeries* line(const QString& key, const QString& name, const QColor& color);
    void removeLine(const QString& key);
    QStringList lineKeys() const { return lines_.keys(); }
    void setXTitle(const QString& title);
    // "epoch" or "training seconds".
    void setXTitle(XAxisMode mode);

    // Fits the axes to every line's points. A fixed y range (accuracy) stays;
    // otherwise y runs from 0 to a little above the highest point.
    void fitAxes();
    void setFixedYRange(double min, double max);
    // The x range an empty chart shows.
    void setEmptyXRange(double min, double max);
    // Whole-number x (epochs, devices): the range is kept exact, with a tick
    // on whole numbers; otherwise it widens to round numbers.
    void setWholeNumberX(bool wholeNumbers);
    // y values are base-10 logarithms (subclasses plot log10 of the data):
    // the axis spans whole decades and labels them 1e-6, 1e-5, ...
    void setDecadesY(bool decades);

    QValueAxis* xAxis() const { return xAxis_; }
    QValueAxis* yAxis() const { return yAxis_; }

private:
    void applyFonts();

    QValueAxis* xAxis_;
    QValueAxis* yAxis_;
    QHash<QString, QLineSeries*> lines_;
    double fontScale_ = 1;
    QFont baseFont_;
    bool fixedY_ = false;
    bool wholeNumberX_ = false;
    bool decadesY_ = false;
    double emptyXMin_ = 0, emptyXMax_ = 1;
};
