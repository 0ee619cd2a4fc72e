// One rank's life cycle in the engine (study/rank_runner.h), without mpirun:
// MPI as a one-process job (a singleton, which MPI_Init makes of a program
// started alone), and the watch on the ranks beside it
// (study/rank_death_watch.h) on child processes. The jobs of several ranks,
// their failures, deaths and signals, are test_mpi's.
#include <QtTest>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "error_of.h"
#include "record/run_process.h"
#include "record/run_record_sink.h"
#include "small_linear_run.h"
#include "study/rank_death_watch.h"
#include "study/rank_runner.h"

namespace {

// A child process that waits until it is killed: by kill_now(), or at the
// end of the test, whatever its checks found.
class Sleeper {
public:
    Sleeper() : pid_(::fork()) {
        if (pid_ == 0)
            while (true) ::pause();
    }
    ~Sleeper() { kill_now(); }
    Sleeper(const Sleeper&) = delete;
    Sleeper& operator=(const Sleeper&) = delete;

    pid_t pid() const { return pid_; }
    // SIGKILL, as the OOM killer ends a rank, and reaped.
    bool kill_now() {
        if (pid_ <= 0) return false;
        const bool killed = ::kill(pid_, SIGKILL) == 0;
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
        return killed;
    }

private:
    pid_t pid_;
};

// The first death a watch reports: which rank, and which were dead then.
class FirstDeath {
public:
    using Death = std::pair<int, std::vector<bool>>;
    dp::RankDeathWatch::OnDeath callback() {
        return [this](int rank, const std::vector<bool>& dead) {
            std::call_once(once_, [&] { reported_.set_value({rank, dead}); });
        };
    }
    // None if no death came in a minute (a watch that misses one fails the
    // test instead of hanging it).
    std::optional<Death> wait() {
        if (seen_.wait_for(std::chrono::minutes(1)) != std::future_status::ready) return std::nullopt;
        return seen_.get();
    }

private:
    std::once_flag once_;
    std::promise<Death> reported_;
    std::future<Death> seen_ = reported_.get_future();
};

// Every write of the run's record, as a sink of the front end's gets it.
struct RecordWrites {
    std::mutex mutex;
    std::vector<dp::RunRecord> records;
};
class MemorySink final : public dp::RunRecordSink {
public:
    explicit MemorySink(std::shared_ptr<RecordWrites> writes) : writes_(std::move(writes)) {}
    void write(const dp::RunRecord& record) override {
        const std::lock_guard lock(writes_->mutex);
        writes_->records.push_back(record);
    }

private:
    std::shared_ptr<RecordWrites> writes_;
};

// The events a front end renders, and a stop asked for where a test wants one.
struct EventLog : dp::StudyObserver {
    bool stop_at_start = false;
    int studies_started = 0, epochs = 0;
    std::optional<dp::PlannedRun> started;
    std::optional<dp::StudyRunResult> finished;
    std::optional<dp::StudyResult> study;
    void on_study_started(const dp::StudyPlan&) override { ++studies_started; }
    void on_run_started(const dp::PlannedRun& run, dp::Trainer& trainer) override {
        started = run;
        if (stop_at_start) trainer.request_stop();
    }
    void on_epoch(const dp::EpochMetrics&) override { ++epochs; }
    void on_run_finished(const dp::StudyRunResult& result) override { finished = result; }
    void on_study_finished(const dp::StudyResult& result) override { study = result; }
};

dp::TrainConfig small_run() { return small_linear_run(64, 32, 2); }  // 2 steps an epoch

}  // namespace

class TestRankRunner : public QObject {
    Q_OBJECT

private slots:
    // The watch tests fork, so they run before MPI starts.
    void deathWatchSeesARankBesideItDie() {
        Sleeper beside;
        FirstDeath first;
        dp::RankDeathWatch watch({{dp::this_host(), ::getpid()}, {dp::this_host(), beside.pid()}}, 0,
                                 first.callback());
        QVERIFY(beside.kill_now());
        const auto death = first.wait();
        QVERIFY2(death, "the death went unseen");
        QCOMPARE(death->first, 1);
        QCOMPARE(death->second, (std::vector<bool>{false, true}));
    }

    // A rank that died between telling its pid and the watch's start.
    void deathWatchReportsARankAlreadyGone() {
        Sleeper gone;
        const pid_t pid = gone.pid();
        QVERIFY(gone.kill_now());
        FirstDeath first;
        dp::RankDeathWatch watch({{dp::this_host(), ::getpid()}, {dp::this_host(), pid}}, 0, first.callback());
        const auto death = first.wait();
        QVERIFY2(death, "the death went unseen");
        QCOMPARE(death->first, 1);
    }

    // A process of the same pid on another machine is not this machine's:
    // its death here is not a rank's. Rank 1 "elsewhere" dies first; the
    // first death reported is rank 2's, beside this one, with rank 1 alive.
    void deathWatchLeavesRanksOnOtherMachines() {
        Sleeper elsewhere, beside;
        FirstDeath first;
        dp::RankDeathWatch watch({{dp::this_host(), ::getpid()},
                                  {dp::this_host() + ".elsewhere", elsewhere.pid()},
                                  {dp::this_host(), beside.pid()}},
                                 0, first.callback());
        QVERIFY(elsewhere.kill_now());
        QVERIFY(beside.kill_now());
        const auto death = first.wait();
        QVERIFY2(death, "the death went unseen");
        QCOMPARE(death->first, 2);
        QCOMPARE(death->second, (std::vector<bool>{false, false, true}));
    }

    // MPI starts here, once for the process (MPI cannot start again after it ends).
    void rankRunsAPlanToItsRecordedEnd() {
        EventLog events;
        const dp::RankRunResult result = rank_runner().run(dp::single_run_plan(small_run(), {}), events);
        QVERIFY(!result.refused);
        QCOMPARE(result.run.outcome, dp::RunOutcome::finished);
        QVERIFY2(result.run.failure.empty(), result.run.failure.c_str());
        QVERIFY(last_words_.empty());
        // The engine resolved the rank's device: one, named in the run's settings.
        QVERIFY(events.started);
        QCOMPARE(events.started->devices.size(), std::size_t(1));
        QCOMPARE(events.started->config.devices, std::vector<std::string>{events.started->devices[0].id});
        QCOMPARE(events.studies_started, 1);
        QCOMPARE(events.epochs, 2);
        QVERIFY(events.finished && events.finished->outcome == dp::RunOutcome::finished);
        QVERIFY(events.study && events.study->complete);
        QCOMPARE(events.study->table.size(), std::size_t(1));
        // The record, through the front end's sinks: started, each epoch, the end.
        const std::lock_guard lock(writes_->mutex);
        QVERIFY(writes_->records.size() >= 4);
        QCOMPARE(writes_->records.front().status, dp::RunStatus::running);
        const dp::RunRecord& ended = writes_->records.back();
        QCOMPARE(ended.status, dp::RunStatus::finished);
        QCOMPARE(ended.epochs.size(), std::size_t(2));
        QCOMPARE(ended.source, std::string("mpirun"));
        QCOMPARE(ended.processes, 1);
        QCOMPARE(ended.pid, std::int64_t(::getpid()));
        QCOMPARE(ended.id, result.run.record.id);
        QVERIFY(result.run.record_error.empty());
        QVERIFY(!ended.batch_losses.empty());  // the recording observer's
    }

    // A stop (a signal the front end turned into one) is returned, recorded
    // as stopped: the job ends by every rank returning, not by an abort.
    void stoppedRunIsRecordedAndReturned() {
        EventLog events;
        events.stop_at_start = true;
        writes_->records.clear();
        const dp::RankRunResult result = rank_runner().run(dp::single_run_plan(small_run(), {}), events);
        QVERIFY(!result.refused);
        QCOMPARE(result.run.outcome, dp::RunOutcome::stopped);
        QVERIFY(events.study && !events.study->complete);
        QVERIFY(!writes_->records.empty());
        QCOMPARE(writes_->records.back().status, dp::RunStatus::stopped);
        QVERIFY(last_words_.empty());
    }

    // A rank trains one run: a plan of several is refused before any
    // collective (the other ranks would wait in one forever).
    void planOfSeveralRunsIsRefused() {
        dp::StudyPlan plan = dp::single_run_plan(small_run(), {});
        plan.repeats = 2;
        EventLog events;
        const std::string refusal = error_of([&] { rank_runner().run(plan, events); });
        QVERIFY2(refusal.find("trains one run, not a plan of 2") != std::string::npos, refusal.c_str());
        QCOMPARE(events.studies_started, 0);
    }

    void cleanupTestCase() { runner_.reset(); }  // MPI_Finalize

private:
    const dp::RankRunner& rank_runner() {
        if (!runner_) {
            static int argc = 1;
            static char name[] = "test_rank_runner";
            static char* args[] = {name, nullptr};
            static char** argv = args;
            runner_.emplace(argc, argv,
                            dp::RankRunner::Options{
                                .sinks = [writes = writes_](const dp::TrainConfig&) {
                                    std::vector<std::unique_ptr<dp::RunRecordSink>> sinks;
                                    sinks.push_back(std::make_unique<MemorySink>(writes));
                                    return sinks;
                                },
                                .render_error = nullptr,
                                .last_words = [this](const std::string& line) { last_words_ = line; }});
        }
        return *runner_;
    }

    std::shared_ptr<RecordWrites> writes_ = std::make_shared<RecordWrites>();
    std::string last_words_;
    std::optional<dp::RankRunner> runner_;
};

QTEST_GUILESS_MAIN(TestRankRunner)
#include "test_rank_runner.moc"
