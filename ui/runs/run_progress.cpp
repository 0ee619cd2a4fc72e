#include "run_progress.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace {

// Below this share of the run done, a remaining-time estimate is mostly the
// start-up (loading, kernel measurement) extrapolated.
constexpr double kMinFractionForEstimate = 0.02;

}  // namespace

void RunProgress::start(int plannedEpochs)
{
    plannedEpochs_ = plannedEpochs;
    epoch_ = batch_ = batchesPerEpoch_ = 0;
    loss_ = 0;
    elapsed_.start();
}

void RunProgress::update(int epoch, int batch, int batchesPerEpoch, double loss)
{
    epoch_ = epoch;
    batch_ = batch;
    batchesPerEpoch_ = batchesPerEpoch;
    loss_ = loss;
}

qint64 RunProgress::batchesDone() const
{
    return qint64(epoch_ - 1) * batchesPerEpoch_ + batch_;
}

int RunProgress::epochsDone() const
{
    return std::max(epoch_ - 1, 0);
}

qint64 RunProgress::batchesPlanned() const
{
    return qint64(plannedEpochs_) * batchesPerEpoch_;
}

QString RunProgress::clock(double seconds)
{
    const qint64 total = qint64(std::llround(seconds));
    const qint64 hours = total / 3600, minutes = total / 60 % 60, secs = total % 60;
    return hours > 0 ? QStringLiteral("%1:%2:%3").arg(hours).arg(minutes, 2, 10, QLatin1Char('0')).arg(secs, 2, 10, QLatin1Char('0'))
                     : QStringLiteral("%1:%2").arg(minutes).arg(secs, 2, 10, QLatin1Char('0'));
}

QString RunProgress::text() const
{
    return textAt(elapsed_.isValid() ? elapsed_.elapsed() / 1000.0 : 0.0);
}

QString RunProgress::textAt(double elapsedSeconds) const
{
    // Finished epochs, as the runs table counts them; the batch is the current epoch's.
    QString text = QCoreApplication::translate("RunProgress", "%1/%2 epochs done · batch %3/%4 · loss %5 · %6 elapsed")
                       .arg(epochsDone())
                       .arg(plannedEpochs_)
                       .arg(batch_)
                       .arg(batchesPerEpoch_)
                       .arg(loss_, 0, 'f', 3)
                       .arg(clock(elapsedSeconds));
    const qint64 planned = batchesPlanned(), done = batchesDone();
    if (planned > 0 && done > 0 && double(done) / double(planned) >= kMinFractionForEstimate) {
        const double left = elapsedSeconds * double(planned - done) / double(done);
        text += QCoreApplication::translate("RunProgress", " · about %1 left").arg(clock(left));
    }
    return text + queueText();
}

QString RunProgress::queueText() const
{
    if (queue_.runs <= 0)
        return {};
    const auto tr = [](const char* text) { return QCoreApplication::translate("RunProgress", text); };
    const QString runs = queue_.runs == 1 ? tr(" · queue: 1 run") : tr(" · queue: %1 runs").arg(queue_.runs);
    if (queue_.timed <= 0)
        return runs;  // none timed: no time rather than a guess
    if (queue_.timed == queue_.runs)
        return runs + tr(", about %1 more").arg(clock(queue_.seconds));
    // The untimed runs take some time too: what is known is a floor.
    return runs + tr(", at least %1 more (%2 not timed)").arg(clock(queue_.seconds)).arg(queue_.runs - queue_.timed);
}
