// A run's step totals cover its steady epochs (RunSummary::step_totals): the
// first epoch's steps are taken out once a second finishes, as the median a
// comparison quotes leaves it out, so that the gap breakdown and the
// predictor divide up the same epochs the comparison times.
#include <QtTest>

#include <vector>

#include "record/run_metrics.h"
#include "scaling/scaling_predictor.h"
#include "train/trainer.h"

namespace {

// Each step's reports, and the summary the run ended with.
struct StepRecorder : dp::TrainObserver {
    std::vector<dp::StepReport> steps;
    dp::RunSummary summary;
    std::string failure;
    void on_step(const dp::StepReport& report) override { steps.push_back(report); }
    void on_finished(const dp::RunSummary& finished) override { summary = finished; }
    void on_failed(const std::string& message) override { failure = message; }
};

dp::TrainConfig linear_run(int epochs) {
    dp::TrainConfig config;
    config.model = "linear";
    config.dataset = "random";
    config.samples = 96;
    config.batch_size = 32;  // 3 steps an epoch
    config.epochs = epochs;
    config.devices = {"cpu:0", "cpu:1"};
    return config;
}

// Device d's phases summed over the recorded steps of epochs >= `from`.
dp::DeviceStepTiming sum_from_epoch(const std::vector<dp::StepReport>& steps, std::size_t d, int from) {
    dp::DeviceStepTiming sum;
    for (const dp::StepReport& step : steps)
        if (step.epoch >= from) sum += step.devices[d];
    return sum;
}

}  // namespace

class TestSteadyStepTotals : public QObject {
    Q_OBJECT

private slots:
    void totalsLeaveOutTheFirstEpochOnceASecondFinished() {
        StepRecorder recorder;
        QCOMPARE(dp::Trainer(linear_run(3)).run(recorder), dp::RunOutcome::finished);
        QVERIFY2(recorder.failure.empty(), recorder.failure.c_str());
        QCOMPARE(recorder.steps.size(), std::size_t(9));
        QCOMPARE(recorder.summary.steps, std::int64_t(6));
        QCOMPARE(recorder.summary.step_epochs, 2);
        QCOMPARE(recorder.summary.timed_epochs(), 2);
        QCOMPARE(recorder.summary.timed_epoch_seconds(),
                 recorder.summary.epochs[1].seconds + recorder.summary.epochs[2].seconds);
        QCOMPARE(recorder.summary.step_totals.size(), std::size_t(2));
        for (std::size_t d = 0; d < 2; ++d) {
            const dp::DeviceStepTiming expected = sum_from_epoch(recorder.steps, d, 2);
            const dp::DeviceStepTiming& got = recorder.summary.step_totals[d];
            QCOMPARE(got.shard, 2 * 48);  // two epochs of half of 96 samples
            QCOMPARE(got.shard, expected.shard);
            // Added over three epochs, then the first taken back out.
            for (const auto& [a, b] : {std::pair{got.forward, expected.forward},
                                       std::pair{got.backward, expected.backward},
                                       std::pair{got.allreduce, expected.allreduce},
                                       std::pair{got.data, expected.data},
                                       std::pair{got.update, expected.update}})
                QVERIFY2(qAbs(a - b) <= 1e-9 + 1e-9 * qAbs(b), qPrintable(QStringLiteral("%1 vs %2").arg(a).arg(b)));
        }
    }

    void aOneEpochRunKeepsItsOnlyEpoch() {
        StepRecorder recorder;
        QCOMPARE(dp::Trainer(linear_run(1)).run(recorder), dp::RunOutcome::finished);
        QCOMPARE(recorder.summary.steps, std::int64_t(3));
        QCOMPARE(recorder.summary.timed_epochs(), 1);
        QCOMPARE(recorder.summary.step_totals[0].shard, 48);
    }

    // A record from before step_epochs (0) covers all its epochs.
    void olderRecordsCoverEveryEpoch() {
        dp::RunSummary summary;
        summary.epochs = {{1, 0, 0, 0, 5.0}, {2, 0, 0, 0, 3.0}, {3, 0, 0, 0, 2.0}};
        QCOMPARE(summary.timed_epochs(), 3);
        QCOMPARE(summary.timed_epoch_seconds(), 10.0);
        summary.step_epochs = 2;
        QCOMPARE(summary.timed_epochs(), 2);
        QCOMPARE(summary.timed_epoch_seconds(), 5.0);
    }

    // The predictor's host work per step comes from the epochs the totals
    // cover: a slow first epoch left out of the steps is left out there too.
    void profileReadsTheTimedEpochsSeconds() {
        dp::TrainConfig config = linear_run(2);
        config.devices = {"cpu:0"};
        dp::RunSummary run;
        run.devices = {"cpu:0"};
        run.epochs = {{1, 0, 0, 0, 9.0}, {2, 0, 0, 0, 1.0}};  // a 9 s warm-up epoch
        run.step_epochs = 1;
        run.steps = 3;
        dp::DeviceStepTiming totals;
        totals.shard = 96;
        totals.forward = 0.3;
        totals.backward = 0.3;
        totals.update = 0.1;
        run.step_totals = {totals};
        const dp::WorkloadProfile profile = dp::workload_profile(config, run, {});
        QCOMPARE(profile.samples_per_epoch, std::int64_t(96));
        // (1.0 s - 0.7 s of phases) over 3 steps, not (10 s - 0.7 s) over them.
        QVERIFY(qAbs(profile.host_per_step - 0.1) < 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestSteadyStepTotals)
#include "test_steady_step_totals.moc"
