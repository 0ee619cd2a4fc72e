#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "record/run_record.h"

// CPU use per device beside the charts, as W&B's system metrics panel shows
// it: for the newest run on the board, each device's thread CPU time over an
// epoch's training as a share of its seconds (dp::EpochMetrics::device_cpu;
// a device starved of its core, or waiting on the others, reads lower), as a
// bar for the last epoch with its percentage and a sparkline over the
// epochs, in the run's colour (the tooltip names the run). A record made before the shares were kept says so in words rather
// than drawing empty bars; a run that has not finished an epoch says when
// they come. Hidden while no run is shown. Two devices a column, beside the
// legend: it never takes more than three lines of the plots' height.
class DeviceUtilisationView : public QWidget {
    Q_OBJECT

public:
    struct Device {
        QString name;                // "cpu:0"
        std::vector<double> shares;  // per epoch that measured it, 0..1; the last is the bar
    };

    explicit DeviceUtilisationView(QWidget* parent = nullptr);

    // The run shown on the board, or its new epochs; the newest run (by id,
    // which starts with its start time) is the one drawn.
    void showRun(const dp::RunRecord& record, const QColor& color);
    // Taken off the board.
    void forgetRun(const std::string& id);
    // 1 is normal; presenter mode enlarges the text (ChartBoard: as the legend).
    void setFontScale(double scale);
    // Whether the board has room for the view beside the legend; without, it
    // stays hidden (ChartBoard::fitLegend: the runs' names come first).
    void setRoom(bool room);

    // The run drawn: its name, and its devices (empty when it has no shares
    // to draw, and then note() says why).
    QString runName() const;
    const std::vector<Device>& devices() const;
    // The line shown in place of bars; empty while bars are drawn.
    QString note() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Shown {
        QString name;
        QColor color;
        std::vector<Device> devices;
        bool anyEpoch = false;  // whether it finished an epoch (else the shares are still to come)
    };

    static QString title();
    const Shown* newest() const;
    // Shown or hidden, and laid out again, after the newest run changed.
    void refresh();
    bool room_ = true;
    int columns() const;

    std::map<std::string, Shown> runs_;  // by id: the last is the newest
    QFont baseFont_;
};
