#include "ring_allreduce_view.h"

#include <QBoxLayout>
#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QtMath>

#include <bit>

#include "core/error.h"
#include "core/exception_message.h"
#include "flow_layout.h"
#include "models/model_info.h"
#include "scaling/scaling_probes.h"
#include "vertical_scroll_area.h"

namespace {

constexpr int kTickMs = 30;
constexpr double kStepWallSeconds = 1.5;  // one step's animation at 1x
constexpr int kDefaultDevices = 4;

// Device d's own colour: pale enough for black text on any mix of them.
QColor deviceColour(int device, int devices)
{
    return QColor::fromHsv(device * 360 / devices, 120, 250);
}

// The mean of the contributing devices' colours.
QColor chunkColour(std::uint32_t contributors, int devices)
{
    int r = 0, g = 0, b = 0, count = 0;
    for (int d = 0; d < devices; ++d) {
        if (!(contributors & (std::uint32_t(1) << d)))
            continue;
        const QColor c = deviceColour(d, devices);
        r += c.red(), g += c.green(), b += c.blue(), ++count;
    }
    return count ? QColor(r / count, g / count, b / count) : QColor(Qt::white);
}

QString bytesText(double bytes)
{
    return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeSIFormat);
}

QString secondsText(double seconds)
{
    if (seconds < 1e-3)
        return QStringLiteral("%1 \u00b5s").arg(seconds * 1e6, 0, 'f', 1);
    return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', 2);
}

// The ring: device 0 at the top, then clockwise; each device a box of its
// chunks, arrows to the right neighbour, and while a step plays, the chunks
// it sends on their way.
class RingDiagram : public QWidget {
public:
    explicit RingDiagram(const RingAllReduceView* view) : view_(view)
    {
        setMinimumHeight(fontMetrics().height() * 8);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        const RingAllReduceModel& model = view_->model();
        const int n = model.devices();
        const QFontMetrics metrics = fontMetrics();
        const int cellHeight = metrics.height() + 6;
        const int wanted = metrics.horizontalAdvance(QStringLiteral("0+1+2")) + 8;
        // Boxes must leave the ring room: at most ~a third of the width each.
        const int cellWidth = std::max(metrics.horizontalAdvance(QStringLiteral("0")) + 6,
                                       std::min(wanted, int(width() / (n <= 4 ? 2.2 : 3.5) / n)));
        // Many devices crowd the ring: each one's name goes left of its
        // chunks, on one row, so that neighbouring boxes do not overlap.
        const bool compact = n > 4;
        const int titleWidth = compact ? metrics.horizontalAdvance(QStringLiteral("8")) + 10 : 0;
        const QSize box(titleWidth + cellWidth * n, cellHeight * (compact ? 1 : 2));
        const QPointF centre(width() / 2.0, height() / 2.0);
        const double rx = std::max(0.0, (width() - box.width()) / 2.0 - 4);
        const double ry = std::max(0.0, (height() - box.height()) / 2.0 - 4);
        std::vector<QPointF> centres;
        for (int d = 0; d < n; ++d) {
            const double angle = -M_PI / 2 + 2 * M_PI * d / n;
            centres.emplace_back(centre.x() + rx * std::cos(angle), centre.y() + ry * std::sin(angle));
        }
        paintLinks(painter, centres);
        const int done = view_->step();
        for (int d = 0; d < n; ++d) {
            const QRectF rect(centres[std::size_t(d)] - QPointF(box.width() / 2.0, box.height() / 2.0), box);
            painter.setPen(palette().color(QPalette::WindowText));
            painter.setBrush(deviceColour(d, n));
            const QRectF title(rect.topLeft(), QSizeF(compact ? titleWidth : box.width(), cellHeight));
            painter.drawRect(title);
            QFont bold = font();  // the name, told apart from the chunks' labels
            bold.setBold(true);
            painter.setFont(bold);
            painter.drawText(title, Qt::AlignCenter, compact ? QString::number(d) : tr("Device %1").arg(d));
            painter.setFont(font());
            const QPointF chunks = compact ? title.topRight() : title.bottomLeft();
            for (int c = 0; c < n; ++c) {
                const std::uint32_t held = model.contributors(d, c, done);
                paintChunk(painter, QRectF(chunks.x() + c * cellWidth, chunks.y(), cellWidth, cellHeight), held);
            }
        }
        paintFlight(painter, centres, QSizeF(cellWidth, cellHeight));
    }

private:
    void paintLinks(QPainter& painter, const std::vector<QPointF>& centres) const
    {
        painter.setPen(QPen(palette().color(QPalette::Mid), 2));
        const auto n = centres.size();
        for (std::size_t d = 0; d < n; ++d) {
            const QLineF line(centres[d], centres[(d + 1) % n]);
            painter.drawLine(line);
            // An arrowhead at the middle, pointing to the right neighbour.
            const QPointF middle = line.pointAt(0.5);
            const double angle = std::atan2(line.dy(), line.dx());
            const double size = fontMetrics().height() * 0.5;
            QPolygonF head;
            head << middle + QPointF(std::cos(angle) * size, std::sin(angle) * size)
                 << middle + QPointF(std::cos(angle + 2.5) * size, std::sin(angle + 2.5) * size)
                 << middle + QPointF(std::cos(angle - 2.5) * size, std::sin(angle - 2.5) * size);
            painter.setBrush(palette().color(QPalette::Mid));
            painter.drawPolygon(head);
        }
    }

    void paintChunk(QPainter& painter, const QRectF& cell, std::uint32_t held) const
    {
        const int n = view_->model().devices();
        painter.setPen(Qt::black);
        painter.setBrush(chunkColour(held, n));
        painter.drawRect(cell);
        const QString label = QString::fromStdString(contributorsLabel(held, n));
        // Too narrow for the devices' names: how many gradients it sums, of
        // all; else the colour alone says it. Never in a smaller font: text
        // under the view's (presenter mode's 16 px and more) is unreadable
        // on a projector.
        const QString shown = fontMetrics().horizontalAdvance(label) <= cell.width() - 2
            ? label
            : (held == view_->model().allDevices()
                   ? QStringLiteral("\u03a3")
                   : QStringLiteral("%1/%2").arg(std::popcount(held)).arg(n));
        if (fontMetrics().horizontalAdvance(shown) <= cell.width() - 2)
            painter.drawText(cell, Qt::AlignCenter, shown);
    }

    void paintFlight(QPainter& painter, const std::vector<QPointF>& centres, QSizeF cell) const
    {
        const double progress = view_->flightProgress();
        const RingAllReduceModel& model = view_->model();
        const int step = view_->step();
        if (progress <= 0 || step >= model.steps())
            return;
        for (int d = 0; d < model.devices(); ++d) {
            const int chunk = model.chunkSent(d, step);
            const QLineF line(centres[std::size_t(d)], centres[std::size_t(model.rightNeighbour(d))]);
            const QRectF rect(line.pointAt(progress) - QPointF(cell.width() / 2, cell.height() / 2), cell);
            painter.setPen(QPen(Qt::black, 2));
            painter.setBrush(chunkColour(model.contributors(d, chunk, step), model.devices()));
            painter.drawRoundedRect(rect, 4, 4);
            painter.drawText(rect, Qt::AlignCenter, tr("c%1").arg(chunk));
        }
    }

    const RingAllReduceView* view_;
};

}  // namespace

RingAllReduceView::RingAllReduceView(QWidget* parent)
    : QWidget(parent),
      model_(kDefaultDevices, gradientBucketFloats("lenet", 25), globalBatch_, classes_),
      devicesSpin_(new QSpinBox),
      backButton_(new QToolButton),
      playButton_(new QPushButton(tr("Play"))),
      stepButton_(new QToolButton),
      speedCombo_(new QComboBox),
      linkCombo_(new QComboBox),
      stepLabel_(new QLabel),
      diagram_(new RingDiagram(this)),
      trafficLabel_(new QLabel),
      timer_(new QTimer(this))
{
    setObjectName(QStringLiteral("ringAllReduceView"));
    devicesSpin_->setRange(2, 8);
    devicesSpin_->setValue(kDefaultDevices);
    devicesSpin_->setPrefix(tr("Devices: "));
    backButton_->setText(tr("\u25c0 Back"));
    stepButton_->setText(tr("Step \u25b6"));
    for (double speed : {0.25, 0.5, 1.0, 2.0, 4.0})
        speedCombo_->addItem(tr("%1\u00d7").arg(speed), speed);
    speedCombo_->setCurrentIndex(2);
    linkCombo_->addItem(tr("this machine's threads"));
    for (const dp::LinkModel& preset : dp::link_presets())
        linkCombo_->addItem(QString::fromStdString(preset.name));
    speedCombo_->setObjectName(QStringLiteral("ringSpeedCombo"));
    linkCombo_->setObjectName(QStringLiteral("ringLinkCombo"));
    linkCombo_->setToolTip(tr("The link the step times are computed for"));
    stepLabel_->setObjectName(QStringLiteral("ringStepLabel"));
    stepLabel_->setWordWrap(true);
    trafficLabel_->setObjectName(QStringLiteral("ringTrafficLabel"));
    trafficLabel_->setTextFormat(Qt::RichText);
    trafficLabel_->setWordWrap(true);
    trafficLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    // The link combo as wide as its longest name ("this machine's threads"):
    // where the row has no room for every control (a 1024-pixel screen in
    // presenter mode), the speed and the link wrap onto a second line rather
    // than cut the name short.
    auto* controls = new FlowLayout;
    controls->addGroup({devicesSpin_, backButton_, playButton_, stepButton_});
    controls->addGroup({new QLabel(tr("Speed")), speedCombo_});
    controls->addGroup({new QLabel(tr("Link")), linkCombo_});
    auto* body = new QHBoxLayout;
    body->addWidget(diagram_, 3);
    // At a projector's 1280 x 720 the table may not fit beside the ring: it scrolls.
    // As wide as the table needs (no wrapping narrows a table): the ring gives way.
    auto* trafficScroll = new VerticalScrollArea(trafficLabel_);
    trafficScroll->setObjectName(QStringLiteral("ringTrafficScroll"));
    body->addWidget(trafficScroll, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(stepLabel_);
    layout->addLayout(body, 1);

    timer_->setInterval(kTickMs);
    connect(timer_, &QTimer::timeout, this, &RingAllReduceView::advance);
    connect(devicesSpin_, &QSpinBox::valueChanged, this, &RingAllReduceView::setDevices);
    connect(backButton_, &QToolButton::clicked, this, &RingAllReduceView::stepBack);
    connect(stepButton_, &QToolButton::clicked, this, &RingAllReduceView::stepForward);
    connect(playButton_, &QPushButton::clicked, this, [this] { isPlaying() ? pause() : play(); });
    connect(linkCombo_, &QComboBox::currentIndexChanged, this, [this] {
        probeThreadsIfNeeded();
        refresh();
    });
    refresh();
}

RingAllReduceView::~RingAllReduceView()
{
    if (probeThread_) {  // its probe must not outlive the view it reports to
        probeThread_->wait();
        delete probeThread_;
    }
}

bool RingAllReduceView::isPlaying() const
{
    return timer_->isActive();
}

void RingAllReduceView::setRun(const QString& modelName, double bucketMegabytes, int devices,
                               int globalBatch, int classes)
{
    modelName_ = modelName;
    bucketMegabytes_ = bucketMegabytes;
    globalBatch_ = globalBatch;
    classes_ = classes;
    const int shown = devices < 2 ? kDefaultDevices : std::min(devices, devicesSpin_->maximum());
    if (shown == devicesSpin_->value())
        rebuildModel();
    else
        devicesSpin_->setValue(shown);  // rebuilds
}

void RingAllReduceView::setDevices(int devices)
{
    if (devicesSpin_->value() != devices)
        devicesSpin_->setValue(devices);  // comes back here
    else
        rebuildModel();
}

void RingAllReduceView::rebuildModel()
{
    std::vector<std::size_t> buckets;
    try {
        buckets = gradientBucketFloats(modelName_.toStdString(), bucketMegabytes_);
    } catch (const dp::Error&) {
        buckets = gradientBucketFloats("lenet", bucketMegabytes_);
    }
    model_ = RingAllReduceModel(devicesSpin_->value(), std::move(buckets), globalBatch_, classes_);
    pause();
    doneSteps_ = 0;
    flight_ = 0;
    probeThreadsIfNeeded();
    refresh();
}

void RingAllReduceView::stepForward()
{
    pause();
    setStep(doneSteps_ + 1);
}

void RingAllReduceView::stepBack()
{
    pause();
    setStep(doneSteps_ - 1);
}

void RingAllReduceView::setStep(int doneSteps)
{
    doneSteps_ = std::clamp(doneSteps, 0, model_.steps());
    flight_ = 0;
    refresh();
}

void RingAllReduceView::play()
{
    if (doneSteps_ >= model_.steps())
        doneSteps_ = 0;  // from the start again
    timer_->start();
    refresh();
}

void RingAllReduceView::pause()
{
    timer_->stop();
    flight_ = 0;
    refresh();
}

void RingAllReduceView::advance()
{
    flight_ += kTickMs / 1000.0 * speedCombo_->currentData().toDouble() / kStepWallSeconds;
    if (flight_ >= 1) {
        flight_ = 0;
        ++doneSteps_;
        if (doneSteps_ >= model_.steps())
            timer_->stop();
        refresh();
    }
    diagram_->update();
}

QString RingAllReduceView::stepText() const
{
    const int steps = model_.steps();
    // While a step plays, the text is about it; else about the last one done.
    const int shown = flight_ > 0 ? doneSteps_ + 1 : doneSteps_;
    if (shown == 0)
        return tr("Before step 1 of %1: each device holds only its own gradient, cut into %2 "
                  "chunks. Reduce\u2011scatter, then all\u2011gather, each %3 steps.")
            .arg(steps)
            .arg(model_.devices())
            .arg(model_.devices() - 1);
    QString text = model_.isReduceScatter(shown - 1)
        ? tr("Step %1 of %2, reduce\u2011scatter: each device adds the chunk its left neighbour "
             "sends to its own.")
        : tr("Step %1 of %2, all\u2011gather: each device copies a fully summed chunk from its "
             "left neighbour.");
    text = text.arg(shown).arg(steps);
    text += QLatin1Char(' ');
    text += tr("%1 per link").arg(bytesText(double(model_.ringLinkBytes(0, shown - 1))));
    if (const auto ring = link(dp::AllReduceStrategy::ring))
        text += tr(": %1 on %2").arg(secondsText(model_.ringStepSeconds(*ring)), linkName());
    else
        text += QStringLiteral(" (%1)").arg(missingTimeText());
    text += QLatin1Char('.');
    if (shown == steps && flight_ == 0)
        text += tr(" Done: every device holds the full sum of every chunk.");
    return text;
}

QString RingAllReduceView::trafficText() const
{
    const int n = model_.devices();
    const dp::ModelInfo* info = nullptr;
    try {
        info = &dp::model_info(modelName_.toStdString());
    } catch (const dp::Error&) {
    }
    const double buffer = double(model_.bufferBytes());
    const std::size_t buckets = model_.bucketFloats().size();
    QString text = tr("<b>%1</b>: %2 gradient floats, %3 per device; chunks of %4.")
                       .arg(info ? QString::fromStdString(info->title).toHtmlEscaped() : modelName_.toHtmlEscaped(),
                            QLocale().toString(qulonglong(model_.bufferBytes() / sizeof(float))),
                            bytesText(buffer), bytesText(double(model_.chunkBytes(0))));
    if (buckets > 1)
        text += tr(" %1 buckets, each cut into chunks and all\u2011reduced in turn.").arg(buckets);
    const auto ring = link(dp::AllReduceStrategy::ring);
    const auto naive = link(dp::AllReduceStrategy::naive);
    const auto dataParallel = link(dp::AllReduceStrategy::dataparallel);
    const auto time = [](const std::optional<dp::LinkModel>& l, double seconds) {
        return l ? secondsText(seconds) : QStringLiteral("\u2026");
    };
    const double parameters = double(model_.dataParallelDeviceZeroParameterBytes());
    const double outputs = double(model_.dataParallelDeviceZeroOutputBytes());
    text += tr("<table cellpadding=3><tr><th></th><th>Ring</th><th>Naive (via device 0)</th>"
               "<th>DataParallel</th></tr>"
               "<tr><td>Steps</td><td>%1</td><td>2</td><td>%2</td></tr>")
                .arg(model_.steps())
                .arg(RingAllReduceModel::kDataParallelSteps);
    text += tr("<tr><td>Per link per step</td><td>%1</td><td>device 0: %2<br>others: %3</td>"
               "<td>device 0: %4<br>(outputs: %5)<br>others: %3<br>(outputs: %6)</td></tr>")
                .arg(bytesText(double(model_.chunkBytes(0))), bytesText(double(n - 1) * buffer),
                     bytesText(buffer), bytesText(parameters), bytesText(outputs),
                     bytesText(double(model_.outputBytes(1))));
    text += tr("<tr><td>Busiest link, in all</td><td>%1</td><td>%2</td><td>%3</td></tr>"
               "<tr><td>All links, in all</td><td>%4</td><td>%5</td><td>%3</td></tr>")
                .arg(bytesText(double(model_.ringBytesPerLink())),
                     bytesText(double(model_.naiveDeviceZeroLinkBytes())),
                     bytesText(double(model_.dataParallelTotalBytes())),
                     bytesText(double(model_.ringTotalBytes())),
                     bytesText(double(model_.naiveTotalBytes())));
    text += tr("<tr><td>Time on %1</td><td>%2</td><td>%3</td><td>%4</td></tr></table>")
                .arg(linkName().toHtmlEscaped(),
                     time(ring, ring ? model_.allReduceSeconds(dp::AllReduceStrategy::ring, *ring) : 0),
                     time(naive, naive ? model_.allReduceSeconds(dp::AllReduceStrategy::naive, *naive) : 0),
                     time(dataParallel, dataParallel ? model_.dataParallelSeconds(*dataParallel) : 0));
    text += tr("Ring and naive move the same bytes; the ring spreads them over every link at once, "
               "naive sends %1 buffers through device 0's. DataParallel's step sends everything "
               "through device 0's link: the parameters out, the outputs of a batch of %2 samples "
               "in and their gradients out, then the gradients in; device 0 then updates alone.")
                .arg(2 * (n - 1))
                .arg(globalBatch_);
    return text;
}

void RingAllReduceView::refresh()
{
    playButton_->setText(isPlaying() ? tr("Pause") : tr("Play"));
    backButton_->setEnabled(doneSteps_ > 0);
    stepButton_->setEnabled(doneSteps_ < model_.steps());
    stepLabel_->setText(stepText());
    trafficLabel_->setText(trafficText());
    diagram_->update();
}

std::optional<dp::LinkModel> RingAllReduceView::link(dp::AllReduceStrategy algorithm) const
{
    if (linkCombo_->currentIndex() > 0)
        return dp::link_presets().at(std::size_t(linkCombo_->currentIndex() - 1));
    if (const auto measured = dp::thread_link_cache().find(algorithm, model_.devices()))
        return measured->link;
    return std::nullopt;
}

QString RingAllReduceView::linkName() const
{
    return linkCombo_->currentText();
}

bool RingAllReduceView::awaitsMeasurement() const
{
    // Until the worker ends the text is not refreshed, though the cache may hold a link already.
    return probeThread_ || (!link(dp::AllReduceStrategy::ring) && !probeErrors_.count(model_.devices()));
}

QString RingAllReduceView::missingTimeText() const
{
    const auto error = probeErrors_.find(model_.devices());
    if (error != probeErrors_.end())
        return tr("no time: could not measure this machine's threads: %1").arg(error->second);
    return tr("measuring this machine's threads\u2026");
}

void RingAllReduceView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    probeThreadsIfNeeded();
}

void RingAllReduceView::probeThreadsIfNeeded()
{
    const int devices = model_.devices();
    const dp::ThreadLinkCache& cache = dp::thread_link_cache();
    if (probeThread_ || !isVisible() || linkCombo_->currentIndex() != 0 || probeErrors_.count(devices)
        || (cache.find(dp::AllReduceStrategy::ring, devices) && cache.find(dp::AllReduceStrategy::naive, devices)))
        return;
    probedDevices_ = devices;
    probeError_.clear();
    // The thread writes probeError_ alone until it has finished.
    probeThread_ = QThread::create([this, devices] {
        try {
            dp::thread_link_cache().get(dp::AllReduceStrategy::ring, devices);
            dp::thread_link_cache().get(dp::AllReduceStrategy::naive, devices);
        } catch (...) {
            probeError_ = QString::fromStdString(dp::current_exception_message());
        }
    });
    connect(probeThread_, &QThread::finished, this, &RingAllReduceView::takeProbe);
    probeThread_->start();
}

void RingAllReduceView::takeProbe()
{
    probeThread_->deleteLater();
    probeThread_ = nullptr;
    if (!probeError_.isEmpty())
        probeErrors_[probedDevices_] = probeError_;
    probeThreadsIfNeeded();  // the count may have changed meanwhile
    refresh();
}
