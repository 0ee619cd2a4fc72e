#include "vocabulary.h"

#include <QCoreApplication>

#include <cmath>

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("Vocabulary", text);
}

// English plurals: the singular for exactly one, the plural otherwise (0 runs).
QString counted(int count, const char* singular, const char* plural)
{
    return tr(count == 1 ? singular : plural).arg(count);
}

}  // namespace

namespace vocabulary {

QString runs(int count)
{
    return counted(count, "%1 run", "%1 runs");
}

QString devices(int count)
{
    return counted(count, "%1 device", "%1 devices");
}

QString deviceNumber(int index)
{
    return tr("device %1").arg(index);
}

QString epochs(int count)
{
    return counted(count, "%1 epoch", "%1 epochs");
}

QString cores(int count)
{
    return counted(count, "%1 core", "%1 cores");
}

QString secondsPerEpochTitle()
{
    return tr("Seconds per epoch");
}

QString secondsPerEpochUnit()
{
    return tr("s/epoch");
}

QString secondsPerEpoch(double seconds)
{
    QString text = QString::number(seconds, 'f', seconds < 10 ? 2 : 1);
    text += QLatin1Char(' ');
    text += secondsPerEpochUnit();
    return text;
}

QString aboutDuration(double seconds)
{
    constexpr double kMinute = 60;
    if (seconds < 0.75 * kMinute)
        return tr("under a minute");
    const int minutes = int(std::lround(seconds / kMinute));
    if (minutes < 120)
        return counted(minutes, "about %1 minute", "about %1 minutes");
    return counted(int(std::lround(seconds / (60 * kMinute))), "about %1 hour", "about %1 hours");
}

QString speedup(double times)
{
    return tr("%1×").arg(times, 0, 'f', 2);
}

QString accuracy(double fraction)
{
    return QString::number(fraction, 'f', 3);
}

QString logScale()
{
    return tr("Log scale");
}

}  // namespace vocabulary
