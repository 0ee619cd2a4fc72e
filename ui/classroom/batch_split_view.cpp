#include "batch_split_view.h"

#include <QEvent>
#include <QResizeEvent>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "vocabulary.h"

namespace {

constexpr int kMargin = 4;
constexpr int kGap = 6;
// A phase shorter than this at scale (the data phase, typically) is drawn
// this wide, taken from the device's longest phase, so that it stays visible
// while the bar's length keeps to scale; the legend gives its real time.
constexpr int kMinPhaseWidth = 3;
constexpr int kPhaseCount = 8;
constexpr int kRowsAlwaysLabelled = 8;

struct Phase {
    const char* name;
    QColor color;
    double dp::DeviceStepTiming::*seconds;
    // In the key only when a device spent time in it: DataParallel's phases and a straggler's wait.
    bool keyedWhenSpent = false;
};

// In the order a step runs them (train/step_trace.cpp lays them out the
// same): DataParallel gathers the outputs after forward and broadcasts the
// parameters after device 0's update; ring and naive runs have neither.
const std::array<Phase, kPhaseCount>& phases()
{
    static const std::array<Phase, kPhaseCount> all{{
        {QT_TRANSLATE_NOOP("BatchSplitView", "data"), QColor(0x78, 0x90, 0x9c),
         &dp::DeviceStepTiming::data},
        {QT_TRANSLATE_NOOP("BatchSplitView", "forward"), QColor(0x42, 0xa5, 0xf5),
         &dp::DeviceStepTiming::forward},
        {QT_TRANSLATE_NOOP("BatchSplitView", "output gather"), QColor(0xff, 0xa7, 0x26),
         &dp::DeviceStepTiming::gather, true},
        {QT_TRANSLATE_NOOP("BatchSplitView", "backward"), QColor(0x3f, 0x51, 0xb5),
         &dp::DeviceStepTiming::backward},
        // A straggler's own wait (--slow-device), before it joins the all-reduce.
        {QT_TRANSLATE_NOOP("BatchSplitView", "slow-device wait"), QColor(0xff, 0xb3, 0x00),
         &dp::DeviceStepTiming::straggler_wait, true},
        {QT_TRANSLATE_NOOP("BatchSplitView", "all-reduce wait"), QColor(0xef, 0x53, 0x50),
         &dp::DeviceStepTiming::allreduce},
        {QT_TRANSLATE_NOOP("BatchSplitView", "update"), QColor(0x66, 0xbb, 0x6a),
         &dp::DeviceStepTiming::update},
        {QT_TRANSLATE_NOOP("BatchSplitView", "parameter broadcast"), QColor(0xab, 0x47, 0xbc),
         &dp::DeviceStepTiming::broadcast, true},
    }};
    return all;
}

// A phase's seconds summed over the devices.
double phaseSeconds(const Phase& phase, const std::vector<dp::DeviceStepTiming>& devices)
{
    double seconds = 0;
    for (const dp::DeviceStepTiming& timing : devices)
        seconds += timing.*phase.seconds;
    return seconds;
}

// Whether the key names `phase`: DataParallel's phases only in its runs.
bool inKey(const Phase& phase, const std::vector<dp::DeviceStepTiming>& devices)
{
    return !phase.keyedWhenSpent || phaseSeconds(phase, devices) > 0;
}

// Heights that follow the font: a row holds its label and its time in ms
// (minimum), with air around them where there is room (comfortable).
int minimumRowHeight(const QFontMetrics& metrics)
{
    return metrics.height() + 2;
}
int comfortableRowHeight(const QFontMetrics& metrics)
{
    return metrics.height() * 3 / 2 + 2;
}
int batchBarHeight(const QFontMetrics& metrics)
{
    return metrics.height() + 8;
}
int axisHeight(const QFontMetrics& metrics)
{
    return metrics.height() + 6;  // tick marks, then their labels
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
    double seconds = 0;
    for (const Phase& phase : phases())
        seconds += timing.*phase.seconds;
    return seconds;
}

// "12.3", "0.041": milliseconds to two significant digits below 1 ms.
QString millisecondsText(double seconds)
{
    const double ms = seconds * 1000.0;
    if (ms < 1.0)
        return QString::number(ms, 'g', 2);
    return QString::number(ms, 'f', ms < 100.0 ? 1 : 0);
}

// Each phase's width in pixels at `pixelsPerSecond`. Edges come from
// cumulative sums, so the widths add up to the total at scale; then every
// phase that took any time gets at least kMinPhaseWidth.
std::array<int, kPhaseCount> phaseWidths(const dp::DeviceStepTiming& timing,
                                         double pixelsPerSecond)
{
    std::array<int, kPhaseCount> widths{};
    double end = 0;
    int left = 0;
    for (int i = 0; i < kPhaseCount; ++i) {
        end += timing.*phases()[std::size_t(i)].seconds;
        const int right = int(std::lround(end * pixelsPerSecond));
        widths[std::size_t(i)] = right - left;
        left = right;
    }
    for (int i = 0; i < kPhaseCount; ++i) {
        int& width = widths[std::size_t(i)];
        if (timing.*phases()[std::size_t(i)].seconds <= 0 || width >= kMinPhaseWidth)
            continue;
        int& longest = *std::max_element(widths.begin(), widths.end());
        const int missing = kMinPhaseWidth - width;
        if (longest - missing < kMinPhaseWidth)
            continue;  // a bar this short has no room to spare
        width += missing;
        longest -= missing;
    }
    return widths;
}

// The round tick step (1, 2 or 5 x 10^k ms) that keeps labels `minSpacing`
// pixels apart on an axis of `width` pixels for `spanMs`.
double tickStepMs(double spanMs, int width, int minSpacing)
{
    const double least = spanMs * minSpacing / std::max(1, width);
    const double magnitude = std::pow(10.0, std::floor(std::log10(least)));
    for (const double factor : {1.0, 2.0, 5.0}) {
        if (factor * magnitude >= least)
            return factor * magnitude;
    }
    return 10.0 * magnitude;
}

}  // namespace

QStringList BatchSplitView::keyPhases() const
{
    QStringList names;
    for (const Phase& phase : phases())
        if (inKey(phase, report_.devices))
            names << tr(phase.name);
    return names;
}

QColor BatchSplitView::phaseColor(const QString& name)
{
    for (const Phase& phase : phases())
        if (tr(phase.name) == name)
            return phase.color;
    return {};
}

BatchSplitView::BatchSplitView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("batchSplitView"));
    // As tall as its rows need; the page gives any more room to the predictions.
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setToolTip(tr("How one training step's global batch was split across the devices, and where "
                  "each device spent that step, on a shared time axis. The legend gives each "
                  "phase's mean time over the devices; a phase too short to see is drawn a few "
                  "pixels wide."));
}

int BatchSplitView::shownBatch() const
{
    return std::accumulate(shards_.begin(), shards_.end(), 0);
}

bool BatchSplitView::showsPartialBatch() const
{
    return !shards_.empty() && batchSize_ > 0 && shownBatch() < batchSize_;
}

int BatchSplitView::rowCount() const
{
    return report_.devices.empty() ? plannedDevices_ : int(report_.devices.size());
}

int BatchSplitView::heightWithRows(int rowHeight, int width) const
{
    const QFontMetrics metrics = fontMetrics();
    return 2 * kMargin + metrics.height() + kGap + batchBarHeight(metrics) + kGap
        + rowCount() * rowHeight + axisHeight(metrics) + kGap + legendHeight(width);
}

int BatchSplitView::legendHeight(int width) const
{
    const QRect area(kMargin, kMargin, width - 2 * kMargin, 0);
    return paintLegend(nullptr, area, labelColumnWidth());
}

int BatchSplitView::heightForWidth(int width) const
{
    return heightWithRows(comfortableRowHeight(fontMetrics()), width);
}

QSize BatchSplitView::sizeHint() const
{
    constexpr int kWidth = 600;
    return {kWidth, heightForWidth(kWidth)};
}

// At the present width, since the legend may take another line there. Up
// to kRowsAlwaysLabelled rows each keep their label; more share their height
// (every few labelled), so that many devices never push the window past the screen.
QSize BatchSplitView::minimumSizeHint() const
{
    const int rows = rowCount();
    const int rowHeight = minimumRowHeight(fontMetrics()) * std::min(rows, kRowsAlwaysLabelled) / rows;
    return {300, heightWithRows(std::max(2, rowHeight), width())};
}

int BatchSplitView::timelineRowHeight() const
{
    const QFontMetrics metrics = fontMetrics();
    const int rowsRoom = height() - heightWithRows(0, width());  // all but the rows
    return std::clamp(rowsRoom / rowCount(), 2, comfortableRowHeight(metrics) + metrics.height() / 2);
}

bool BatchSplitView::labelsEveryRow() const
{
    return timelineRowHeight() >= minimumRowHeight(fontMetrics());
}

void BatchSplitView::resizeEvent(QResizeEvent* event)
{
    // The minimum height follows the legend's lines at this width.
    if (legendHeight(event->size().width()) != legendHeight(event->oldSize().width()))
        updateGeometry();
    QWidget::resizeEvent(event);
}

void BatchSplitView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        updateGeometry();
    QWidget::changeEvent(event);
}

void BatchSplitView::startRun(int batchSize, int deviceCount)
{
    batchSize_ = batchSize;
    plannedDevices_ = std::max(1, deviceCount);
    sawFullStep_ = false;
    report_ = {};
    shards_.clear();
    updateGeometry();
    update();
}

void BatchSplitView::showStep(const dp::StepReport& report)
{
    int samples = 0;
    for (const dp::DeviceStepTiming& device : report.devices)
        samples += device.shard;
    const bool partial = batchSize_ > 0 && samples < batchSize_;
    if (partial && sawFullStep_)
        return;  // keep the last full-size step on screen
    sawFullStep_ = sawFullStep_ || !partial;

    const bool rowsChanged = report.devices.size() != report_.devices.size();
    report_ = report;
    shards_.clear();
    for (const dp::DeviceStepTiming& device : report.devices)
        shards_.push_back(device.shard);
    if (rowsChanged)
        updateGeometry();
    update();
}

QString BatchSplitView::title() const
{
    const int batch = shownBatch();
    const int devices = int(report_.devices.size());
    const QString split = devices == 1 ? tr("on 1 device") : tr("split over %1 devices").arg(devices);
    if (report_.batch == 0)  // a saved run's mean step (savedMeanStep)
        return tr("The run's mean step: a global batch of %1 samples %2").arg(batch).arg(split);
    if (!showsPartialBatch())
        return tr("Epoch %1, step %2: a global batch of %3 samples %4")
            .arg(report_.epoch)
            .arg(report_.batch)
            .arg(batch)
            .arg(split);
    // A first step smaller than the batch is all there is: the data set is smaller.
    if (report_.batch == 1)
        return tr("Epoch %1, step 1: the whole training set, %2 samples (less than the batch "
                  "size, %3), %4")
            .arg(report_.epoch)
            .arg(batch)
            .arg(batchSize_)
            .arg(split);
    return tr("Epoch %1, step %2: the epoch's last batch, partial: %3 of %4 samples")
        .arg(report_.epoch)
        .arg(report_.batch)
        .arg(batch)
        .arg(batchSize_);
}

int BatchSplitView::labelColumnWidth() const
{
    const QFontMetrics metrics = fontMetrics();
    const int swatch = metrics.ascent() / 2 + 3;
    return std::max({metrics.horizontalAdvance(tr("batch %1").arg(shownBatch())),
                     swatch + metrics.horizontalAdvance(vocabulary::deviceNumber(rowCount() - 1)),
                     metrics.horizontalAdvance(tr("time, ms")),
                     metrics.horizontalAdvance(tr("mean"))})
        + kGap;
}

void BatchSplitView::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QFontMetrics metrics = fontMetrics();

    if (report_.devices.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                         tr("The batch split across devices and each device's step timeline "
                            "appear here during a run"));
        return;
    }

    const int labelWidth = labelColumnWidth();
    const QRect titleRect(area.left(), area.top(), area.width(), metrics.height());
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(title(), Qt::ElideRight, titleRect.width()));

    const QRect batchBar(area.left(), titleRect.bottom() + 1 + kGap, area.width(),
                         batchBarHeight(metrics));
    paintBatchBar(painter, batchBar, labelWidth);

    const int rowsTop = batchBar.bottom() + 1 + kGap;
    const int rowHeight = timelineRowHeight();
    const int axisBottom = paintTimeline(
        painter, QRect(area.left(), rowsTop, area.width(), rowCount() * rowHeight), rowHeight,
        labelWidth);
    paintLegend(&painter,
                QRect(area.left(), axisBottom + 1 + kGap, area.width(), legendHeight(width())),
                labelWidth);
}

void BatchSplitView::paintBatchBar(QPainter& painter, const QRect& bar, int labelWidth) const
{
    const QFontMetrics metrics = fontMetrics();
    const int batch = shownBatch();
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

int BatchSplitView::paintTimeline(QPainter& painter, const QRect& area, int rowHeight,
                                  int labelWidth) const
{
    const QFontMetrics metrics = fontMetrics();
    double longest = 0;
    for (const dp::DeviceStepTiming& timing : report_.devices)
        longest = std::max(longest, totalSeconds(timing));

    // Room for the longest total on the right, as "1234.5 ms".
    const int totalWidth = metrics.horizontalAdvance(tr("%1 ms").arg(QStringLiteral("0000.0"))) + kGap;
    const int barsLeft = area.left() + labelWidth;
    const int barsWidth = std::max(1, area.width() - labelWidth - totalWidth);
    const double pixelsPerSecond = longest > 0 ? barsWidth / longest : 0;
    const int barHeight = std::max(1, rowHeight - std::max(2, rowHeight / 5));
    // Where rows are too short for text, every few rows keep their label.
    const int labelEvery = (minimumRowHeight(metrics) + rowHeight - 1) / rowHeight;

    // Shared scale: ticks first, so the bars lie over the grid lines.
    const QRect axis(barsLeft, area.bottom() + 1, barsWidth, axisHeight(metrics));
    const double spanMs = longest * 1000.0;
    const int tickLabelRoom =
        metrics.horizontalAdvance(QString::number(spanMs, 'g', 3)) + 3 * kGap;
    const double stepMs = spanMs > 0 ? tickStepMs(spanMs, barsWidth, tickLabelRoom) : 0;
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(area.left(), axis.top() + 4, labelWidth, metrics.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, tr("time, ms"));
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(axis.left(), axis.top(), axis.right(), axis.top());
    for (int tick = 0; stepMs > 0 && tick * stepMs <= spanMs * (1 + 1e-9); ++tick) {
        const double ms = tick * stepMs;
        const int x = barsLeft + int(std::lround(ms / 1000.0 * pixelsPerSecond));
        painter.setPen(palette().color(QPalette::Midlight));
        painter.drawLine(x, area.top(), x, area.bottom());
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawLine(x, axis.top(), x, axis.top() + 3);
        const QString label = QString::number(ms, 'g', 6);
        const int width = metrics.horizontalAdvance(label);
        const int left = std::clamp(x - width / 2, axis.left(), axis.right() + 1 - width);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(left, axis.top() + 4, width, metrics.height()), Qt::AlignCenter,
                         label);
    }

    for (int i = 0; i < int(report_.devices.size()); ++i) {
        const dp::DeviceStepTiming& timing = report_.devices[std::size_t(i)];
        const QRect row(area.left(), area.top() + i * rowHeight, area.width(), rowHeight);
        const int barTop = row.top() + (rowHeight - barHeight) / 2;
        const int swatch = std::min(barHeight, metrics.ascent() / 2 + 2);
        painter.fillRect(QRect(row.left(), row.center().y() - swatch / 2 + 1, swatch, swatch),
                         deviceColor(i));
        const bool labelled = i % labelEvery == 0;
        painter.setPen(palette().color(QPalette::WindowText));
        if (labelled)
            painter.drawText(QRect(row.left() + swatch + 4, row.top(), labelWidth, rowHeight),
                             Qt::AlignLeft | Qt::AlignVCenter, vocabulary::deviceNumber(i));

        int left = barsLeft;
        const std::array<int, kPhaseCount> widths = phaseWidths(timing, pixelsPerSecond);
        for (int p = 0; p < kPhaseCount; ++p) {
            const int width = widths[std::size_t(p)];
            if (width > 0)
                painter.fillRect(QRect(left, barTop, width, barHeight), phases()[std::size_t(p)].color);
            left += width;
        }
        if (labelled)
            painter.drawText(QRect(area.right() + 1 - totalWidth, row.top(), totalWidth, rowHeight),
                             Qt::AlignRight | Qt::AlignVCenter,
                             tr("%1 ms").arg(millisecondsText(totalSeconds(timing))));
    }
    return axis.bottom();
}

int BatchSplitView::paintLegend(QPainter* painter, const QRect& area, int labelWidth) const
{
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    if (painter) {
        painter->setPen(palette().color(QPalette::WindowText));
        painter->drawText(QRect(area.left(), area.top(), labelWidth, line),
                          Qt::AlignLeft | Qt::AlignVCenter, tr("mean"));
    }
    const int swatch = metrics.ascent() / 2 + 3;
    const int itemsLeft = area.left() + labelWidth;
    int x = itemsLeft, top = area.top();
    const double devices = std::max<std::size_t>(1, report_.devices.size());
    for (const Phase& phase : phases()) {
        if (!inKey(phase, report_.devices))
            continue;
        const double seconds = phaseSeconds(phase, report_.devices);
        const QString text =
            tr("%1 %2 ms").arg(tr(phase.name), millisecondsText(seconds / devices));
        const int itemWidth = swatch + 4 + metrics.horizontalAdvance(text);
        // The items flow onto further lines rather than being dropped.
        if (x > itemsLeft && x + itemWidth > area.right() + 1) {
            x = itemsLeft;
            top += line;
        }
        if (painter) {
            painter->fillRect(QRect(x, top + (line - swatch) / 2, swatch, swatch), phase.color);
            painter->setPen(palette().color(QPalette::WindowText));
            painter->drawText(QRect(x + swatch + 4, top, itemWidth, line),
                              Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += itemWidth + 2 * kGap;
    }
    return top + line - area.top();
}
