#include "efficiency_heat_map.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace {

// Red at 0% through yellow at 50% to green at 100% (and above: more than
// linear scaling is as good as it gets here).
QColor efficiencyColour(double efficiency)
{
    const double clamped = std::clamp(efficiency, 0.0, 1.0);
    return QColor::fromHsvF(float(clamped / 3.0), 0.55f, 0.95f);
}

template <typename Number>
void insertSorted(QList<Number>& list, Number value)
{
    if (!list.contains(value)) {
        list.append(value);
        std::sort(list.begin(), list.end());
    }
}

}  // namespace

EfficiencyHeatMap::EfficiencyHeatMap(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("efficiencyHeatMap"));
}

void EfficiencyHeatMap::setRows(const std::vector<dp::StudyRow>& rows)
{
    rows_ = rows;
    learningRates_.clear();
    for (const dp::StudyRow& row : rows_)
        if (!learningRates_.contains(row.lr))
            learningRates_.append(row.lr);
    // A study that grows run by run keeps showing the lr the user picked.
    if (!learningRates_.contains(shownLr_))
        shownLr_ = learningRates_.isEmpty() ? 0.0f : learningRates_.front();
    showRowsOfShownLr();
}

void EfficiencyHeatMap::showLearningRate(float lr)
{
    if (!learningRates_.contains(lr) || lr == shownLr_)
        return;
    shownLr_ = lr;
    showRowsOfShownLr();
}

void EfficiencyHeatMap::showRowsOfShownLr()
{
    deviceCounts_.clear();
    batchSizes_.clear();
    shown_.clear();
    for (const dp::StudyRow& row : rows_) {
        if (row.lr != shownLr_)
            continue;
        shown_.push_back(row);
        insertSorted(deviceCounts_, row.devices);
        insertSorted(batchSizes_, row.batch_size);
    }
    title_ = learningRates_.isEmpty() ? tr("Scaling efficiency: no finished runs")
                                      : tr("Scaling efficiency, lr %1").arg(double(shownLr_));
    updateGeometry();
    update();
}

std::optional<double> EfficiencyHeatMap::efficiencyAt(int devices, int batchSize) const
{
    for (const dp::StudyRow& row : shown_)
        if (row.devices == devices && row.batch_size == batchSize && std::isfinite(row.efficiency))
            return row.efficiency;
    return std::nullopt;
}

QSize EfficiencyHeatMap::sizeHint() const
{
    const QFontMetrics metrics(font());
    return {metrics.height() * (6 + 6 * int(std::max<qsizetype>(deviceCounts_.size(), 1))),
            metrics.height() * (5 + 3 * int(std::max<qsizetype>(batchSizes_.size(), 1)))};
}

QSize EfficiencyHeatMap::minimumSizeHint() const
{
    const QFontMetrics metrics(font());
    return {metrics.height() * 16, metrics.height() * 8};
}

void EfficiencyHeatMap::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().base());
    const QFontMetrics metrics(font());
    const int line = metrics.height();
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(0, 0, width(), 2 * line), Qt::AlignCenter, title_);
    if (deviceCounts_.isEmpty())
        return;
    // Batch size labels on the left, device counts under the cells.
    const int left = metrics.horizontalAdvance(tr("batch 000000")) + line;
    const QRect grid(left, 2 * line, width() - left - line, height() - 5 * line);
    const double cellWidth = double(grid.width()) / double(deviceCounts_.size());
    const double cellHeight = double(grid.height()) / double(batchSizes_.size());
    for (int column = 0; column < deviceCounts_.size(); ++column) {
        for (int row = 0; row < batchSizes_.size(); ++row) {
            const QRectF cell(grid.left() + column * cellWidth, grid.top() + row * cellHeight,
                              cellWidth, cellHeight);
            const std::optional<double> efficiency = efficiencyAt(deviceCounts_[column], batchSizes_[row]);
            painter.fillRect(cell.adjusted(1, 1, -1, -1),
                             efficiency ? efficiencyColour(*efficiency) : palette().color(QPalette::Window));
            painter.setPen(efficiency ? QColor(Qt::black) : palette().color(QPalette::Text));
            painter.drawText(cell, Qt::AlignCenter,
                             efficiency ? QStringLiteral("%1%").arg(100 * *efficiency, 0, 'f', 0)
                                        : QStringLiteral("–"));
        }
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRectF(grid.left() + column * cellWidth, grid.bottom() + 2, cellWidth, line),
                         Qt::AlignCenter, deviceCounts_[column] == 1 ? tr("1 device") : tr("%1 devices").arg(deviceCounts_[column]));
    }
    for (int row = 0; row < batchSizes_.size(); ++row)
        painter.drawText(QRectF(0, grid.top() + row * cellHeight, left - line / 2, cellHeight),
                         Qt::AlignRight | Qt::AlignVCenter, tr("batch %1").arg(batchSizes_[row]));
    painter.drawText(QRect(left, grid.bottom() + line + 4, grid.width(), line), Qt::AlignCenter,
                     tr("speedup over the fewest devices ÷ devices (100%: linear scaling)"));
}
