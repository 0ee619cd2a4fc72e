// The Classroom's step timeline (ui/classroom/batch_split_view.h): a
// DataParallel step's output gather and parameter broadcast drawn as their
// own coloured segments where the step runs them, and named in the key;
// ring and naive steps without them. Fed step reports: no training.
#include <QtTest>

#include <vector>

#include "batch_split_view.h"
#include "record/run_record.h"
#include "saved_step.h"

namespace {

// Two devices of 32 samples: 1 ms data, 4 forward, 8 backward, 4 all-reduce,
// 1 update; DataParallel's 3 ms gather and 3 ms broadcast if asked.
dp::StepReport step(bool dataParallel)
{
    dp::StepReport report{.epoch = 1, .batch = 1, .devices = {}};
    for (int device = 0; device < 2; ++device) {
        dp::DeviceStepTiming timing{32, 0.001, 0.004, 0.008, 0.004, 0.001};
        if (dataParallel) {
            timing.gather = 0.003;
            timing.broadcast = 0.003;
        }
        report.devices.push_back(timing);
    }
    return report;
}

// The x of each run of `colour` along row `y` of `image`, left to right.
std::vector<int> segmentStarts(const QImage& image, int y, const QColor& colour)
{
    std::vector<int> starts;
    bool inside = false;
    for (int x = 0; x < image.width(); ++x) {
        const bool match = image.pixelColor(x, y) == colour;
        if (match && !inside)
            starts.push_back(x);
        inside = match;
    }
    return starts;
}

// The first row of `image` with `colour` in it, else -1.
int firstRowWith(const QImage& image, const QColor& colour)
{
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.pixelColor(x, y) == colour)
                return y;
    return -1;
}

QImage drawn(BatchSplitView& view)
{
    view.resize(800, view.heightForWidth(800));
    return view.grab().toImage().convertToFormat(QImage::Format_RGB32);
}

}  // namespace

class TestBatchSplitView : public QObject {
    Q_OBJECT

private slots:
    void dataParallelsPhasesAreSegmentsOfTheirOwn()
    {
        BatchSplitView view;
        view.startRun(64, 2);
        view.showStep(step(true));
        QCOMPARE(view.keyPhases(),
                 QStringList({"data", "forward", "output gather", "backward", "all-reduce wait", "update",
                              "parameter broadcast"}));
        const QColor gather = BatchSplitView::phaseColor(QStringLiteral("output gather"));
        const QColor broadcast = BatchSplitView::phaseColor(QStringLiteral("parameter broadcast"));
        QVERIFY(gather.isValid() && broadcast.isValid() && gather != broadcast);
        for (const char* other : {"forward", "backward", "all-reduce wait", "update"}) {
            QVERIFY(BatchSplitView::phaseColor(QString::fromLatin1(other)) != gather);
            QVERIFY(BatchSplitView::phaseColor(QString::fromLatin1(other)) != broadcast);
        }

        // In a device's row, where the step runs them: the gather between
        // forward and backward, the broadcast after the update.
        const QImage image = drawn(view);
        const int row = firstRowWith(image, gather);
        QVERIFY(row >= 0);
        const auto at = [&](const char* phase) {
            const std::vector<int> starts = segmentStarts(image, row, BatchSplitView::phaseColor(phase));
            return starts.empty() ? -1 : starts.front();
        };
        QVERIFY(at("forward") >= 0);
        QVERIFY(at("forward") < at("output gather"));
        QVERIFY(at("output gather") < at("backward"));
        QVERIFY(at("backward") < at("all-reduce wait"));
        QVERIFY(at("all-reduce wait") < at("update"));
        QVERIFY(at("update") < at("parameter broadcast"));
    }

    void ringStepsHaveNeither()
    {
        BatchSplitView view;
        view.startRun(64, 2);
        view.showStep(step(false));
        QCOMPARE(view.keyPhases(), QStringList({"data", "forward", "backward", "all-reduce wait", "update"}));
        const QImage image = drawn(view);
        QCOMPARE(firstRowWith(image, BatchSplitView::phaseColor(QStringLiteral("output gather"))), -1);
        QCOMPARE(firstRowWith(image, BatchSplitView::phaseColor(QStringLiteral("parameter broadcast"))), -1);
        QVERIFY(firstRowWith(image, BatchSplitView::phaseColor(QStringLiteral("backward"))) >= 0);
    }

    // A saved DataParallel run's mean step keeps its gather and broadcast.
    void aSavedRunsMeanStepKeepsThem()
    {
        dp::RunRecord record;
        record.config.batch_size = 64;
        record.steps = 10;
        for (const dp::DeviceStepTiming& timing : step(true).devices) {
            dp::DeviceStepTiming total = timing;
            total.shard *= 10;
            for (double dp::DeviceStepTiming::*phase :
                 {&dp::DeviceStepTiming::data, &dp::DeviceStepTiming::forward, &dp::DeviceStepTiming::backward,
                  &dp::DeviceStepTiming::allreduce, &dp::DeviceStepTiming::update,
                  &dp::DeviceStepTiming::gather, &dp::DeviceStepTiming::broadcast})
                total.*phase *= 10;
            record.step_totals.push_back(total);
        }
        const std::optional<dp::StepReport> mean = savedMeanStep(record);
        QVERIFY(mean);
        QCOMPARE(mean->devices.size(), std::size_t(2));
        QVERIFY(qFuzzyCompare(mean->devices[0].gather, 0.003));
        QVERIFY(qFuzzyCompare(mean->devices[1].broadcast, 0.003));
        QVERIFY(qFuzzyCompare(mean->devices[0].backward, 0.008));
        QCOMPARE(mean->devices[0].shard + mean->devices[1].shard, 64);
    }
};

QTEST_MAIN(TestBatchSplitView)
#include "test_batch_split_view.moc"
