// The progress bar's text: epoch x of y, elapsed time, and the time left
// once enough of the run is done to estimate it.
#include <QtTest>

#include "run_progress.h"

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
};

QTEST_GUILESS_MAIN(TestRunProgress)
#include "test_run_progress.moc"
