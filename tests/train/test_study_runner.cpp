// The engine's study floor (study/study_plan.h, study_runner.h) as every
// front end uses it: the plans' runs, a stop from the front end, each run's
// record (name, trace) kept by the runner.
#include <QtTest>

#include <QFile>
#include <QTemporaryDir>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "devices/device.h"
#include "small_linear_run.h"
#include "study/study_plan.h"
#include "study/study_runner.h"

namespace {

// Records which runs started and asks the runner to stop after the first epoch of run `stop_in`.
class StoppingObserver final : public dp::StudyObserver {
public:
    StoppingObserver(dp::StudyRunner& runner, int stop_in) : runner_(runner), stop_in_(stop_in) {}
    void on_run_started(const dp::PlannedRun&, dp::Trainer&) override { ++started; }
    void on_epoch(const dp::EpochMetrics&) override {
        if (started == stop_in_) runner_.request_stop();
    }
    int started = 0;

private:
    dp::StudyRunner& runner_;
    int stop_in_;
};

}  // namespace

class TestStudyRunner : public QObject {
    Q_OBJECT

private slots:
    void aRetuneRequestIsTheFirstRepeats();
    void aLessonPlanResolvesEachRunsDevicesOnce();
    void aLessonPlanWithARunThatCannotRunIsRefused();
    void aStopEndsTheStudyAfterTheRunInFlight();
    void aStopBeforeTheStudyRunsNoRun();
    void aStopFromAnotherThreadReachesTheRunInFlight();
    void eachRunIsNamedAndTracedByItsId();
};

void TestStudyRunner::aRetuneRequestIsTheFirstRepeats()
{
    dp::TrainConfig config = small_linear_run(64, 32, 1);
    config.devices = {"cpu:0"};
    config.retune = true;
    dp::StudyPlan plan = dp::single_run_plan(config);
    plan.repeats = 3;
    const std::vector<dp::PlannedRun> runs = plan.runs();
    QCOMPARE(runs.size(), std::size_t(3));
    QVERIFY(runs[0].config.retune);
    // The repeats reuse the kernels the first measured: like with like.
    QVERIFY(!runs[1].config.retune && !runs[2].config.retune);
    QCOMPARE(runs[2].repeat, 2);
}

void TestStudyRunner::aLessonPlanResolvesEachRunsDevicesOnce()
{
    dp::TrainConfig one = small_linear_run(64, 32, 1);
    one.devices = {"cpu:0"};
    dp::TrainConfig replicas = one;
    replicas.devices = {"cpu:0x2"};  // one entry, two devices
    const dp::StudyPlan plan = dp::lesson_plan({{one, "g1", "1 device"}, {replicas, "g1", "2 replicas"}});
    QCOMPARE(plan.kind, dp::StudyKind::lesson);
    QCOMPARE(plan.points.size(), std::size_t(2));
    QCOMPARE(plan.points[0].devices.size(), std::size_t(1));
    QCOMPARE(plan.points[1].devices.size(), std::size_t(2));
    QCOMPARE(plan.points[1].name, std::string("2 replicas"));
    QCOMPARE(plan.points[1].comparison_group, std::string("g1"));
    QCOMPARE(plan.points[1].point, std::size_t(1));
    QCOMPARE(std::string(dp::study_kind_name(plan.kind)), std::string("lesson"));
    QCOMPARE(dp::parse_study_kind("lesson"), std::optional(dp::StudyKind::lesson));
}

void TestStudyRunner::aLessonPlanWithARunThatCannotRunIsRefused()
{
    dp::TrainConfig fine = small_linear_run(64, 32, 1);
    fine.devices = {"cpu:0"};
    dp::TrainConfig tooSmall = fine;
    tooSmall.devices = {"cpu:0x2"};
    tooSmall.batch_size = 1;  // one sample cannot be split over two devices
    QVERIFY_THROWS_EXCEPTION(dp::Error, dp::lesson_plan({{fine, "", ""}, {tooSmall, "", ""}}));
}

void TestStudyRunner::aStopEndsTheStudyAfterTheRunInFlight()
{
    dp::TrainConfig config = small_linear_run(96, 32, 3);
    config.devices = {"cpu:0"};
    dp::StudyPlan plan = dp::single_run_plan(config);
    plan.repeats = 3;
    dp::StudyRunner runner({});
    StoppingObserver observer(runner, 1);
    const dp::StudyResult result = runner.run(plan, observer);
    QCOMPARE(observer.started, 1);
    QVERIFY(!result.complete);
    QCOMPARE(result.runs.size(), std::size_t(1));
    QCOMPARE(result.runs[0].outcome, dp::RunOutcome::stopped);
    QCOMPARE(result.runs[0].record.status, dp::RunStatus::stopped);
    QCOMPARE(result.runs[0].record.epochs.size(), std::size_t(1));  // the epoch it completed
}

void TestStudyRunner::aStopBeforeTheStudyRunsNoRun()
{
    dp::TrainConfig config = small_linear_run(64, 32, 1);
    config.devices = {"cpu:0"};
    dp::StudyRunner runner({});
    runner.request_stop();
    StoppingObserver observer(runner, 0);
    const dp::StudyResult result = runner.run(dp::single_run_plan(config), observer);
    QCOMPARE(observer.started, 0);
    QVERIFY(result.runs.empty());
    QVERIFY(!result.complete);
}

// As the workbench stops a study: from its GUI thread while the study
// trains on another (scripts/tsan runs this under ThreadSanitizer).
void TestStudyRunner::aStopFromAnotherThreadReachesTheRunInFlight()
{
    class FirstEpochSignal final : public dp::StudyObserver {
    public:
        void on_epoch(const dp::EpochMetrics&) override { epoch_done.store(true); }
        std::atomic<bool> epoch_done{false};
    } observer;
    dp::TrainConfig config = small_linear_run(96, 32, 100000);  // never ends on its own
    config.devices = {"cpu:0"};
    dp::StudyPlan plan = dp::single_run_plan(config);
    plan.repeats = 2;
    dp::StudyRunner runner({});
    std::thread stopper([&] {
        while (!observer.epoch_done.load()) std::this_thread::yield();
        runner.request_stop();
    });
    const dp::StudyResult result = runner.run(plan, observer);
    stopper.join();
    QCOMPARE(result.runs.size(), std::size_t(1));
    QCOMPARE(result.runs[0].outcome, dp::RunOutcome::stopped);
    QVERIFY(!result.complete);
}

void TestStudyRunner::eachRunIsNamedAndTracedByItsId()
{
    const QTemporaryDir traces;
    dp::TrainConfig config = small_linear_run(64, 32, 1);
    config.devices = {"cpu:0"};
    dp::StudyPlan plan = dp::lesson_plan({{config, "", "first"}, {config, "", "second"}});
    dp::StudyRunner runner({.source = "test", .sinks = {}, .render_error = {},
                            .trace_folder = traces.path().toStdString()});
    StoppingObserver observer(runner, -1);
    const dp::StudyResult result = runner.run(plan, observer);
    QVERIFY(result.complete);
    QCOMPARE(result.runs.size(), std::size_t(2));
    QCOMPARE(result.runs[0].record.name, std::string("first"));
    QCOMPARE(result.runs[1].record.name, std::string("second"));
    QCOMPARE(result.runs[1].record.source, std::string("test"));
    for (const dp::StudyRunResult& run : result.runs) {
        const QString trace = traces.filePath(QString::fromStdString(run.record.id) + QStringLiteral(".trace.json"));
        QCOMPARE(QString::fromStdString(run.record.config.trace_path), trace);
        QVERIFY2(QFile::exists(trace), qPrintable(trace));
    }
}

QTEST_GUILESS_MAIN(TestStudyRunner)
#include "test_study_runner.moc"
