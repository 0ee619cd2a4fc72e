#pragma once

#include <QLabel>

#include <optional>

class QChartView;

// What an empty chart says to do, centred over its plot (issue 31: a first
// launch showed three empty charts and no word on what to do). A label over
// the view rather than an item of the chart's scene, so that an exported
// picture never carries it.
class EmptyChartText : public QLabel {
    Q_OBJECT

public:
    // Over `chart`'s plot, which it follows as the chart is resized.
    explicit EmptyChartText(QChartView* chart);

    // Shown while not empty.
    void setMessage(const QString& text);

    // "Press Start to train LeNet on Fashion-MNIST: about 2 minutes on this
    // machine"; without the time where none was measured.
    static QString startTraining(const QString& model, const QString& data,
                                 std::optional<double> seconds);
    // Runs in the table, none of them checked.
    static QString checkRuns();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Over the chart's plot area.
    void place();
    // A little larger than the chart's font, whatever it is now: presenter
    // mode's enlarged font reaches no widget that set a size of its own.
    void followChartFont();

    QChartView* chart_;
};
