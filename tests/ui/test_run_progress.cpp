// The progress bar's text: epoch x of y, elapsed time, and the time left
// once enough of the run is done to estimate it; then the queue behind it.
#include <QtTest>

#include "run_progress.h"
#include "run_queue.h"
#include "run_time_estimates.h"

class TestRunProgress : public QObject
{
    Q_OBJECT

private slots:
    void saysEpochOfPlannedElapsedAndTimeLeft()
    {
        RunProgress progress;
        progress.start(10);
        progress.update(2, 50, 100, 0.5123);
        QCOMPARE(progress.batchesDone(), qint64(150));
        QCOMPARE(progress.batchesPlanned(), qint64(1000));
        // 150 of 1000 batches in 42 s: 850 more take 238 s.
        QCOMPARE(progress.textAt(42),
                 QStringLiteral("1/10 epochs done · batch 50/100 · loss 0.512 · 0:42 elapsed · about 3:58 left"));
    }

    void countsFinishedEpochsLikeTheRunsTable()
    {
        RunProgress progress;
        progress.start(8);
        progress.update(1, 152, 157, 0.7);  // the first epoch still running
        QCOMPARE(progress.epochsDone(), 0);
        QVERIFY(progress.textAt(10).startsWith(QStringLiteral("0/8 epochs done · batch 152/157")));
    }

    void noEstimateFromTheFirstBatches()
    {
        RunProgress progress;
        progress.start(10);
        progress.update(1, 3, 100, 2.3);  // 0.3% done: mostly start-up so far
        QVERIFY(!progress.textAt(5).contains(QStringLiteral("left")));
    }

    void clockShowsHoursOnlyWhenNeeded()
    {
        QCOMPARE(RunProgress::clock(59.6), QStringLiteral("1:00"));
        QCOMPARE(RunProgress::clock(3 * 3600 + 5 * 60 + 7), QStringLiteral("3:05:07"));
    }

    // Issue 42: "about 0:06 left" with four runs queued said nothing of them.
    void saysWhatTheQueueTakesAfterTheRunsOwnTime()
    {
        RunProgress progress;
        progress.start(10);
        progress.update(10, 50, 100, 0.5);  // 950 of 1000 batches in 114 s: 6 s left
        progress.setQueue({4, 4, 340});
        QCOMPARE(progress.textAt(114),
                 QStringLiteral("9/10 epochs done · batch 50/100 · loss 0.500 · 1:54 elapsed · about 0:06 left"
                                " · queue: 4 runs, about 5:40 more"));
        progress.setQueue({1, 1, 90});
        QVERIFY(progress.textAt(114).endsWith(QStringLiteral(" · queue: 1 run, about 1:30 more")));
        // Runs no probe timed are not guessed: what is known is a floor.
        progress.setQueue({3, 2, 200});
        QVERIFY(progress.textAt(114).endsWith(QStringLiteral(" · queue: 3 runs, at least 3:20 more (1 not timed)")));
        progress.setQueue({2, 0, 0});
        QVERIFY(progress.textAt(114).endsWith(QStringLiteral(" · queue: 2 runs")));
        progress.setQueue({});
        QVERIFY(progress.textAt(114).endsWith(QStringLiteral("about 0:06 left")));
    }

    // The queue's time is each queued run's probe estimate, summed; an
    // unmeasured run is counted, not timed.
    void theQueuesTimeSumsItsRunsEstimates()
    {
        RunQueue queue;
        dp::TrainConfig lenet;
        lenet.epochs = 2;
        dp::TrainConfig resnet = lenet;
        resnet.model = "resnet18-narrow";
        dp::TrainConfig unmeasured = lenet;
        unmeasured.batch_size = 4;
        for (const dp::TrainConfig& config : {lenet, resnet, lenet, unmeasured})
            queue.enqueue({config, {}, {}});
        const auto fakeProbe = [](const dp::TrainConfig& config) -> std::optional<double> {
            if (config.batch_size == 4)
                return std::nullopt;
            return (config.model == "lenet" ? 30.0 : 100.0) * config.epochs;
        };
        const QueueTime time = queueTime(queue, fakeProbe);
        QCOMPARE(time.runs, 4);
        QCOMPARE(time.timed, 3);
        QCOMPARE(time.seconds, 60.0 + 200.0 + 60.0);
    }

    // A comparison's time: both runs' estimates, times the repeats; nothing
    // while either is unmeasured (one is never guessed from the other).
    void aComparisonsTimeNeedsBothRunsMeasured()
    {
        dp::TrainConfig one;
        one.devices = {"cpu:0"};
        dp::TrainConfig two = one;
        two.devices = {"cpu:0", "cpu:1"};
        const auto fakeProbe = [](const dp::TrainConfig& config) -> std::optional<double> {
            return config.devices.size() == 1 ? 200.0 : 150.0;
        };
        QCOMPARE(comparisonSeconds({one, two}, 1, fakeProbe), std::optional<double>(350));
        QCOMPARE(comparisonSeconds({one, two}, 3, fakeProbe), std::optional<double>(1050));
        const auto onlyOne = [](const dp::TrainConfig& config) -> std::optional<double> {
            return config.devices.size() == 1 ? std::optional<double>(200.0) : std::nullopt;
        };
        QCOMPARE(comparisonSeconds({one, two}, 1, onlyOne), std::nullopt);
        QCOMPARE(comparisonSeconds({}, 1, fakeProbe), std::nullopt);
    }

    void roughDurationsReadAsAButtonSaysThem()
    {
        QCOMPARE(roughDuration(42), QStringLiteral("under a minute"));
        QCOMPARE(roughDuration(350), QStringLiteral("about 6 min"));
        QCOMPARE(roughDuration(80 * 60), QStringLiteral("about 1 h 20 min"));
    }
};

QTEST_GUILESS_MAIN(TestRunProgress)
#include "test_run_progress.moc"
