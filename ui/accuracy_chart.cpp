#include "accuracy_chart.h"

#include <QChart>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>

namespace {

constexpr int kDefaultEpochs = 10;
// Past this many intervals one tick per epoch crowds the axis labels.
constexpr int kMaxEpochIntervals = 10;

}  // namespace

AccuracyChart::AccuracyChart(QWidget* parent)
    : QChartView(parent), epochAxis_(new QValueAxis), accuracyAxis_(new QValueAxis)
{
    auto* accuracyChart = new QChart;
    accuracyChart->setTitle(tr("Test accuracy"));
    QFont titleFont = accuracyChart->titleFont();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    accuracyChart->setTitleFont(titleFont);
    accuracyChart->legend()->setAlignment(Qt::AlignBottom);
    accuracyChart->legend()->hide();

    epochAxis_->setTitleText(tr("epoch"));
    epochAxis_->setLabelFormat(QStringLiteral("%d"));
    epochAxis_->setTickType(QValueAxis::TicksDynamic);
    epochAxis_->setTickAnchor(1);
    accuracyAxis_->setTitleText(tr("test acc"));
    accuracyAxis_->setRange(0.0, 1.0);
    accuracyAxis_->setTickCount(6);
    accuracyAxis_->setLabelFormat(QStringLiteral("%.1f"));
    accuracyChart->addAxis(epochAxis_, Qt::AlignBottom);
    accuracyChart->addAxis(accuracyAxis_, Qt::AlignLeft);

    setChart(accuracyChart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(420, 300);

    // An empty chart still shows the axes a default run will use.
    showEpochs(kDefaultEpochs);
}

void AccuracyChart::startRun(const QString& name, int epochs)
{
    currentRun_ = new QLineSeries;
    currentRun_->setName(name);
    currentRun_->setPointsVisible(true);
    chart()->addSeries(currentRun_);
    currentRun_->attachAxis(epochAxis_);
    currentRun_->attachAxis(accuracyAxis_);
    const bool firstRun = chart()->series().size() == 1;
    // A legend only helps once there is more than one line to tell apart.
    chart()->legend()->setVisible(!firstRun);
    // Earlier, longer runs stay in view.
    showEpochs(firstRun ? epochs : std::max(shownEpochs_, epochs));
}

void AccuracyChart::showEpochs(int epochs)
{
    shownEpochs_ = epochs;
    const int span = std::max(epochs - 1, 1);
    epochAxis_->setRange(1, 1 + span);
    // Ticks fall on whole epochs.
    epochAxis_->setTickInterval((span + kMaxEpochIntervals - 1) / kMaxEpochIntervals);
}

void AccuracyChart::addPoint(int epoch, double testAccuracy)
{
    if (currentRun_)
        currentRun_->append(epoch, testAccuracy);
}
