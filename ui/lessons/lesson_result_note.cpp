#include "lesson_result_note.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

#include "lesson_table.h"
#include "run_comparison.h"

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("LessonResultNote", text);
}

// "a speedup well above 1×" reads as at least this much: a range whose top
// stays below it does not show the gain the lesson promises.
constexpr double kWellAboveOne = 1.2;
// "1× or less": a range whose bottom is above this shows a clear gain.
constexpr double kClearlyAboveOne = 1.1;
// A speedup range wider than this share of its median cannot tell speedups apart.
constexpr double kWideRange = 0.15;
// Fewer steady epochs (those after the first) than this give a speedup of one or two samples.
constexpr int kFewSteadyEpochs = 2;

// An N-device run's speedup over its 1-device run, with where it came from.
struct MeasuredSpeedup {
    std::size_t run = 0;  // in the lesson's runs
    double median = 0, min = 0, max = 0;
};

std::vector<MeasuredSpeedup> speedupsOf(const std::vector<dp::RunRecord>& runs)
{
    const std::vector<RunComparison> comparisons = compareRuns(runs);
    std::vector<MeasuredSpeedup> speedups;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunComparison& comparison = comparisons[i];
        if (runs[i].device_count() < 2 || !comparison.speedup || !comparison.speedupRange)
            continue;
        const RepeatRange& range = *comparison.speedupRange;
        // Without a range (one steady epoch a run) the note judges the figure
        // itself, and its reasons say there were too few steps to measure.
        if (dp::has_speedup_range(range.min, range.max))
            speedups.push_back({i, range.median, range.min, range.max});
        else
            speedups.push_back({i, range.median, range.median, range.median});
    }
    return speedups;
}

QString times(double value)
{
    return QStringLiteral("%1×").arg(value, 0, 'f', 2);
}

QString measured(const MeasuredSpeedup& speedup)
{
    if (speedup.max - speedup.min < 0.005)
        return times(speedup.median);
    return QStringLiteral("%1 (%2–%3)").arg(times(speedup.median), times(speedup.min), times(speedup.max));
}

QString label(const dp::RunRecord& run)
{
    return QString::fromStdString(run.label());
}

// Why the speedups may read as they do, from the runs' own records: each a sentence.
QStringList reasons(const std::vector<dp::RunRecord>& runs, const std::vector<MeasuredSpeedup>& speedups)
{
    QStringList why;
    for (const dp::RunRecord& run : runs)
        if (run.busy)
            why << tr("the machine was busy during %1: other processes kept %2 cores busy, so its "
                      "times are not to be trusted (run the lesson again on an idle machine)")
                       .arg(label(run))
                       .arg(run.other_cores, 0, 'f', 1);
    const auto fewest = std::min_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
        return a.epochs.size() < b.epochs.size();
    });
    const int steadyEpochs = fewest == runs.end() ? 0 : std::max(0, int(fewest->epochs.size()) - 1);
    const bool wide = std::any_of(speedups.begin(), speedups.end(), [](const MeasuredSpeedup& speedup) {
        return speedup.median > 0 && (speedup.max - speedup.min) / speedup.median > kWideRange;
    });
    if (steadyEpochs < kFewSteadyEpochs || wide) {
        const dp::RunRecord& shortest = *fewest;
        const QString steps = shortest.steps > 0 ? tr(" (%1 steps in all)").arg(shortest.steps) : QString();
        const QString epochs = steadyEpochs == 1 ? tr("1 steady epoch") : tr("%1 steady epochs").arg(steadyEpochs);
        why << tr("too few steps to measure: %1 timed %2 after its first%3, and the speedup is read "
                  "from those epochs' spread; more epochs or more images narrow it")
                   .arg(label(shortest), epochs, steps);
    }
    for (const dp::RunRecord& run : runs) {
        const int cores = run.cpu_cores_used();
        if (cores > 0 && cores < run.device_count()) {
            why << tr("%1's %2 devices took turns on %3 cores of this machine: they cannot gain more "
                      "than %3 cores allow")
                       .arg(label(run))
                       .arg(run.device_count())
                       .arg(cores);
            break;
        }
    }
    if (why.isEmpty()) {
        double mostOther = 0;
        for (const dp::RunRecord& run : runs)
            mostOther = std::max(mostOther, run.other_cores);
        why << tr("no run was busy (other processes kept at most %1 cores busy) and the range is "
                  "narrow: this is what this machine measures for these settings")
                   .arg(mostOther, 0, 'f', 1);
    }
    return why;
}

}  // namespace

QString lessonResultNote(const Lesson& lesson, const std::vector<dp::RunRecord>& runs)
{
    if (lesson.expects == LessonExpectation::none)
        return {};
    const std::vector<MeasuredSpeedup> speedups = speedupsOf(runs);
    QString contradiction;
    switch (lesson.expects) {
    case LessonExpectation::none:
        return {};
    case LessonExpectation::speedupWellAboveOne:
        if (speedups.empty() || speedups.front().max >= kWellAboveOne)
            return {};
        contradiction = tr("The lesson looks for a speedup well above 1×; these runs measured %1.")
                            .arg(measured(speedups.front()));
        break;
    case LessonExpectation::speedupAtMostOne:
        if (speedups.empty() || speedups.front().min <= kClearlyAboveOne)
            return {};
        contradiction = tr("The lesson looks for a speedup of 1× or less; these runs measured %1.")
                            .arg(measured(speedups.front()));
        break;
    case LessonExpectation::secondSpeedupLower:
        if (speedups.size() < 2 || speedups[1].median < speedups[0].median)
            return {};
        contradiction = tr("The lesson looks for a lower speedup in its second comparison; these runs "
                           "measured %1, then %2.")
                            .arg(measured(speedups[0]), measured(speedups[1]));
        break;
    }
    return tr("%1 Why here: %2.").arg(contradiction, reasons(runs, speedups).join(QStringLiteral("; ")));
}
