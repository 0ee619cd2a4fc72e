#include "device_utilisation_view.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace {

// Devices a column: with the title, three lines, as tall as the legend beside it.
constexpr int kRowsPerColumn = 2;
// More columns than this, and the rest are counted, not drawn.
constexpr int kMostColumns = 4;
constexpr double kMargin = 4;

const std::vector<DeviceUtilisationView::Device> kNoDevices;

// Text widths in `metrics`: the device's name, the bar, its percentage and the sparkline.
struct ColumnWidths {
    double name, bar, percent, sparkline;
    double total() const { return name + bar + percent + sparkline + 3 * kMargin; }
};

ColumnWidths columnWidths(const QFontMetricsF& metrics)
{
    const double em = metrics.horizontalAdvance(QLatin1Char('M'));
    return {metrics.horizontalAdvance(QStringLiteral("cuda:00")), 5 * em,
            metrics.horizontalAdvance(QStringLiteral(" 100%")), 4 * em};
}

}  // namespace

DeviceUtilisationView::DeviceUtilisationView(QWidget* parent) : QWidget(parent), baseFont_(font())
{
    setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
    hide();
}

void DeviceUtilisationView::showRun(const dp::RunRecord& record, const QColor& color)
{
    Shown shown{QString::fromStdString(record.label()), color, {}, !record.epochs.empty()};
    for (const dp::EpochMetrics& epoch : record.epochs) {
        // Epochs from before the shares were kept have none: skipped, not zero.
        if (epoch.device_cpu.empty())
            continue;
        shown.devices.resize(std::max(shown.devices.size(), epoch.device_cpu.size()));
        for (std::size_t d = 0; d < epoch.device_cpu.size(); ++d)
            shown.devices[d].shares.push_back(epoch.device_cpu[d]);
    }
    for (std::size_t d = 0; d < shown.devices.size(); ++d)
        shown.devices[d].name = d < record.config.devices.size()
                                        ? QString::fromStdString(record.config.devices[d])
                                        : tr("device %1").arg(d);
    runs_[record.id] = std::move(shown);
    refresh();
}

void DeviceUtilisationView::forgetRun(const std::string& id)
{
    if (runs_.erase(id) > 0)
        refresh();
}

void DeviceUtilisationView::setRoom(bool room)
{
    if (room == room_)
        return;
    room_ = room;
    refresh();
}

void DeviceUtilisationView::setFontScale(double scale)
{
    QFont scaled = baseFont_;
    scaled.setPointSizeF(baseFont_.pointSizeF() * scale);
    setFont(scaled);
    refresh();
}

const DeviceUtilisationView::Shown* DeviceUtilisationView::newest() const
{
    return runs_.empty() ? nullptr : &runs_.rbegin()->second;
}

QString DeviceUtilisationView::runName() const
{
    return newest() ? newest()->name : QString();
}

const std::vector<DeviceUtilisationView::Device>& DeviceUtilisationView::devices() const
{
    return newest() ? newest()->devices : kNoDevices;
}

QString DeviceUtilisationView::note() const
{
    const Shown* run = newest();
    if (!run || !run->devices.empty())
        return {};
    // Short, as the title: the tooltip names the run.
    return run->anyEpoch ? tr("CPU per device: not in this older record")
                         : tr("CPU per device: after the first epoch");
}

int DeviceUtilisationView::columns() const
{
    const int devices = int(this->devices().size());
    return std::clamp((devices + kRowsPerColumn - 1) / kRowsPerColumn, 1, kMostColumns);
}

// The title: the run is told by its colour, and named in the tooltip (a
// run's full name would take the legend's width), which also says that the
// bars are the last epoch's (in the title, that was cut short at 1366x768).
QString DeviceUtilisationView::title()
{
    return tr("CPU per device");
}

void DeviceUtilisationView::refresh()
{
    setVisible(room_ && newest() != nullptr);
    setToolTip(tr("%1\nEach device thread's CPU time over an epoch's training, as a share of the "
                  "epoch's seconds: 100% never waited; lower waited for a core (other work on the "
                  "machine), for the other devices, or for its GPU. The bar is the last epoch, the "
                  "line every epoch. GPU utilisation itself is not recorded.")
                       .arg(runName()));
    updateGeometry();
    update();
}

QSize DeviceUtilisationView::sizeHint() const
{
    const QFontMetricsF metrics(font());
    const double line = metrics.height();
    if (!note().isEmpty())
        return QSize(int(std::ceil(metrics.horizontalAdvance(note()) + 2 * kMargin)), int(std::ceil(line + kMargin)));
    const int rows = std::min<int>(int(devices().size()), kRowsPerColumn);
    QFont titleFont = font();
    titleFont.setBold(true);
    const double width = std::max(columns() * (columnWidths(metrics).total() + 2 * kMargin),
                                  QFontMetricsF(titleFont).horizontalAdvance(title()) + 2 * kMargin);
    return QSize(int(std::ceil(width)), int(std::ceil((1 + rows) * line + kMargin)));
}

QSize DeviceUtilisationView::minimumSizeHint() const
{
    // The title and the bars may elide; the height is what it is.
    return QSize(std::min(sizeHint().width(), 160), sizeHint().height());
}

void DeviceUtilisationView::paintEvent(QPaintEvent*)
{
    const Shown* run = newest();
    if (!run)
        return;
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF metrics(font());
    const double line = metrics.height();
    const QColor text = palette().color(QPalette::WindowText);
    const QColor faint = palette().color(QPalette::PlaceholderText);
    const QRectF area = QRectF(rect()).adjusted(kMargin, 0, -kMargin, 0);
    painter.setPen(text);
    if (run->devices.empty()) {
        painter.setPen(faint);
        painter.drawText(area, Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(note(), Qt::ElideRight, area.width()));
        return;
    }
    QFont titleFont = font();
    titleFont.setBold(true);
    painter.setFont(titleFont);
    painter.drawText(QRectF(area.left(), 0, area.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(titleFont).elidedText(title(), Qt::ElideRight, area.width()));
    painter.setFont(font());

    const ColumnWidths widths = columnWidths(metrics);
    const double columnWidth = area.width() / columns();
    const int drawn = std::min<int>(int(run->devices.size()), columns() * kRowsPerColumn);
    for (int i = 0; i < drawn; ++i) {
        const Device& device = run->devices[std::size_t(i)];
        const double left = area.left() + columnWidth * (i / kRowsPerColumn);
        const double top = line * (1 + i % kRowsPerColumn);
        const bool last = i + 1 == drawn && drawn < int(run->devices.size());
        if (last) {  // the column's last place counts the devices not drawn
            painter.setPen(faint);
            painter.drawText(QRectF(left, top, columnWidth, line), Qt::AlignLeft | Qt::AlignVCenter,
                             tr("+%1 more devices").arg(int(run->devices.size()) - drawn + 1));
            break;
        }
        painter.setPen(text);
        painter.drawText(QRectF(left, top, widths.name, line), Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(device.name, Qt::ElideRight, widths.name));
        const double share = std::clamp(device.shares.back(), 0.0, 1.0);
        const QRectF bar(left + widths.name + kMargin, top + line * 0.2, widths.bar, line * 0.6);
        painter.fillRect(bar, faint.lighter(160));
        painter.fillRect(QRectF(bar.left(), bar.top(), bar.width() * share, bar.height()), run->color);
        painter.drawText(QRectF(bar.right(), top, widths.percent, line), Qt::AlignRight | Qt::AlignVCenter,
                         tr("%1%").arg(std::lround(100 * share)));
        // Every epoch's share, 0 at the bottom and 100% at the top.
        const QRectF spark(bar.right() + widths.percent + 2 * kMargin, top + line * 0.15, widths.sparkline,
                           line * 0.7);
        if (device.shares.size() > 1) {
            QPainterPath path;
            for (std::size_t e = 0; e < device.shares.size(); ++e) {
                const QPointF point(spark.left() + spark.width() * double(e) / double(device.shares.size() - 1),
                                    spark.bottom() - spark.height() * std::clamp(device.shares[e], 0.0, 1.0));
                e == 0 ? path.moveTo(point) : path.lineTo(point);
            }
            painter.setPen(QPen(run->color, 1.5));
            painter.drawPath(path);
        }
        painter.setPen(QPen(faint, 0.5, Qt::DotLine));
        painter.drawLine(spark.bottomLeft(), spark.bottomRight());
    }
}
