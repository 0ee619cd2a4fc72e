#include "batch_split_view.h"

#include <QEvent>
#include <QPainter>

#include <algorithm>
#include <array>
#include <numeric>

namespace {

constexpr int kMargin = 4;
constexpr int kGap = 6;
// Timing bars fill most of their row, up to this height.
constexpr int kMaxTimingBarHeight = 28;

struct Phase {
    const char* name;
    QColor color;
    double dp::DeviceStepTiming::*seconds;
};

const std::array<Phase, 5>& phases()
{
    static const std::array<Phase, 5> all{{
        {QT_TRANSLATE_NOOP("BatchSplitView", "data"), QColor(0x90, 0xa4, 0xae),
         &dp::DeviceStepTiming::data},
        {QT_TRANSLATE_NOOP("BatchSplitView", "forward"), QColor(0x42, 0xa5, 0xf5),
         &dp::DeviceStepTiming::forward},
        {QT_TRANSLATE_NOOP("BatchSplitView", "backward"), QColor(0x3f, 0x51, 0xb5),
         &dp::DeviceStepTiming::backward},
        {QT_TRANSLATE_NOOP("BatchSplitView", "all-reduce wait"), QColor(0xef, 0x53, 0x50),
         &dp::DeviceStepTiming::allreduce},
        {QT_TRANSLATE_NOOP("BatchSplitView", "update"), QColor(0x66, 0xbb, 0x6a),
         &dp::DeviceStepTiming::update},
    }};
    return all;
}

// Distinct, evenly spread hues; the golden angle keeps neighbours apart.
QColor deviceColor(int index)
{
    return QColor::fromHsv((30 + index * 137) % 360, 110, 235);
}

QColor textColorOn(const QColor& background)
{
    return background.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
}

double totalSeconds(const dp::DeviceStepTiming& timing)
{
    return timing.data + timing.forward + timing.backward + timing.allreduce + timing.update;
}

}  // namespace

BatchSplitView::BatchSplitView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("batchSplitView"));
    // At least its natural height; taller where there is room (the Classroom tab).
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMinimumHeight(sizeHint().height());
    setToolTip(tr("How the last step's global batch was split across devices, and where each "
                  "device spent that step"));
}

QSize BatchSplitView::sizeHint() const
{
    const int line = fontMetrics().height();
    // Batch bar, room for two timing rows with labels, legend.
    const int height = kMargin + (line + 6) + kGap + 2 * line + kGap + line + kMargin;
    return {400, std::max(110, height)};
}

void BatchSplitView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        setMinimumHeight(sizeHint().height());
    QWidget::changeEvent(event);
}

void BatchSplitView::showStep(const dp::StepReport& report)
{
    report_ = report;
    shards_.clear();
    for (const dp::DeviceStepTiming& device : report.devices)
        shards_.push_back(device.shard);
    update();
}

void BatchSplitView::clear()
{
    report_ = {};
    shards_.clear();
    update();
}

void BatchSplitView::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QFontMetrics metrics = fontMetrics();

    if (report_.devices.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignCenter,
                         tr("The batch split across devices appears here during a run"));
        return;
    }

    const int batch = std::accumulate(shards_.begin(), shards_.end(), 0);
    const int deviceCount = int(report_.devices.size());
    const int labelWidth =
        std::max({metrics.horizontalAdvance(tr("batch %1").arg(batch)),
                  metrics.horizontalAdvance(tr("dev %1").arg(deviceCount - 1)) + 11,  // + swatch
                  metrics.horizontalAdvance(tr("step time"))})
        + kGap;

    // The batch bar grows with the widget, up to twice the text height.
    const int batchBarHeight = std::clamp(area.height() / 5, metrics.height() + 6, 2 * metrics.height() + 6);
    const QRect batchBar(area.left(), area.top(), area.width(), batchBarHeight);
    const QRect legend(area.left(), area.bottom() - metrics.height() + 1, area.width(),
                       metrics.height());
    const QRect timings(area.left(), batchBar.bottom() + 1 + kGap, area.width(),
                        legend.top() - kGap - (batchBar.bottom() + 1 + kGap));

    paintBatchBar(painter, batchBar, labelWidth);
    paintTimings(painter, timings, labelWidth);
    paintLegend(painter, legend, labelWidth);
}

void BatchSplitView::paintBatchBar(QPainter& painter, const QRect& bar, int labelWidth) const
{
    const QFontMetrics metrics = fontMetrics();
    const int batch = std::accumulate(shards_.begin(), shards_.end(), 0);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(bar.left(), bar.top(), labelWidth, bar.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, tr("batch %1").arg(batch));
    if (batch <= 0)
        return;

    const QRect segments = bar.adjusted(labelWidth, 0, 0, 0);
    int consumed = 0;
    for (std::size_t i = 0; i < shards_.size(); ++i) {
        // Edges from cumulative sums, so rounding never leaves a gap.
        const int left = segments.left() + int(qint64(segments.width()) * consumed / batch);
        consumed += shards_[i];
        const int right = segments.left() + int(qint64(segments.width()) * consumed / batch);
        const QRect segment(left, segments.top(), right - left, segments.height());
        const QColor color = deviceColor(int(i));
        painter.fillRect(segment, color);
        painter.setPen(palette().color(QPalette::Window));
        if (i > 0)
            painter.drawLine(segment.topLeft(), segment.bottomLeft());

        // "0: 32" where it fits, then "32", else nothing rather than clipped text.
        const QRect textRect = segment.adjusted(3, 0, -3, 0);
        const QString full = tr("%1: %2").arg(i).arg(shards_[i]);
        const QString shortText = QString::number(shards_[i]);
        QString text;
        if (metrics.horizontalAdvance(full) <= textRect.width())
            text = full;
        else if (metrics.horizontalAdvance(shortText) <= textRect.width())
            text = shortText;
        if (!text.isEmpty()) {
            painter.setPen(textColorOn(color));
            painter.drawText(textRect, Qt::AlignCenter, text);
        }
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(segments.adjusted(0, 0, -1, -1));
}

void BatchSplitView::paintTimings(QPainter& painter, const QRect& area, int labelWidth) const
{
    const QFontMetrics metrics = fontMetrics();
    const int deviceCount = int(report_.devices.size());
    if (deviceCount == 0 || area.height() <= 0)
        return;
    double longest = 0;
    for (const dp::DeviceStepTiming& timing : report_.devices)
        longest = std::max(longest, totalSeconds(timing));

    // Room for the longest total on the right, as "12.3 ms".
    const int totalWidth = metrics.horizontalAdvance(QStringLiteral("00000.0 ms")) + kGap;
    const int rowHeight = std::max(2, area.height() / deviceCount);
    const bool labelled = rowHeight >= metrics.height();
    const int barHeight = std::clamp(rowHeight * 2 / 3, 1, kMaxTimingBarHeight);
    const int barsLeft = area.left() + labelWidth;
    const int barsWidth = std::max(0, area.width() - labelWidth - totalWidth);

    for (int i = 0; i < deviceCount; ++i) {
        const dp::DeviceStepTiming& timing = report_.devices[std::size_t(i)];
        const QRect row(area.left(), area.top() + i * rowHeight, area.width(), rowHeight);
        if (row.bottom() > area.bottom() + 1)
            break;
        const int barTop = row.top() + (rowHeight - barHeight) / 2;
        if (labelled) {
            const QRect label(row.left(), row.top(), labelWidth, rowHeight);
            const int swatch = std::min(8, metrics.ascent() - 2);
            painter.fillRect(QRect(label.left(), label.center().y() - swatch / 2, swatch, swatch),
                             deviceColor(i));
            painter.setPen(palette().color(QPalette::WindowText));
            painter.drawText(label.adjusted(swatch + 3, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                             tr("dev %1").arg(i));
        } else {
            painter.fillRect(QRect(row.left(), barTop, labelWidth - kGap, barHeight),
                             deviceColor(i));
        }

        const double total = totalSeconds(timing);
        if (longest > 0) {
            // Shared scale: a device that waits longer has a longer bar.
            const double pixelsPerSecond = barsWidth / longest;
            double start = 0;
            for (const Phase& phase : phases()) {
                const double seconds = timing.*phase.seconds;
                const int left = barsLeft + int(start * pixelsPerSecond);
                start += seconds;
                const int right = barsLeft + int(start * pixelsPerSecond);
                if (right > left)
                    painter.fillRect(QRect(left, barTop, right - left, barHeight), phase.color);
            }
        }
        if (labelled) {
            painter.setPen(palette().color(QPalette::WindowText));
            painter.drawText(QRect(area.right() - totalWidth + 1, row.top(), totalWidth, rowHeight),
                             Qt::AlignRight | Qt::AlignVCenter,
                             tr("%1 ms").arg(total * 1000.0, 0, 'f', 1));
        }
    }
}

void BatchSplitView::paintLegend(QPainter& painter, const QRect& area, int labelWidth) const
{
    const QFontMetrics metrics = fontMetrics();
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(area.left(), area.top(), labelWidth, area.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, tr("step time"));
    const int swatch = std::min(10, metrics.ascent() - 2);
    int x = area.left() + labelWidth;
    for (const Phase& phase : phases()) {
        const QString name = tr(phase.name);
        const int itemWidth = swatch + 4 + metrics.horizontalAdvance(name);
        if (x + itemWidth > area.right() + 1)
            break;  // drop what does not fit rather than clip it
        painter.fillRect(QRect(x, area.center().y() - swatch / 2, swatch, swatch), phase.color);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x + swatch + 4, area.top(), itemWidth, area.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, name);
        x += itemWidth + 2 * kGap;
    }
}
