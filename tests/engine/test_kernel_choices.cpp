// The kernel cache's promises: a choice is measured once per machine, read
// back by every later process, rebuilt when the file is bad, measured again
// only when asked, never measured under fixed tuning, and measured once when
// several device threads meet the same shape together.
#include <sys/stat.h>

#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "backend/kernel_choices.h"
#include "core/error.h"
#include "io/file_lock.h"

namespace {

// A measurement that counts its calls and "finds" `choice`.
struct CountingMeasure {
    int choice = 2;
    std::atomic<int> calls{0};
    std::function<int()> fn() {
        return [this] { ++calls; return choice; };
    }
};

std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

class TestKernelChoices : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::filesystem::path file() const {
        return std::filesystem::path(dir_.path().toStdString()) / "sub" / "kernel-choices.tsv";
    }

private slots:
    void init() { std::filesystem::remove_all(file().parent_path()); }

    void measuredOnceThenReadBackByTheNextProcess() {
        CountingMeasure measure;
        {
            dp::KernelChoices first;
            first.configure(file(), dp::KernelTuning::cached);
            QCOMPARE(first.choose("conv a", 0, measure.fn()), 2);
            QCOMPARE(first.choose("conv a", 0, measure.fn()), 2);
            QCOMPARE(measure.calls.load(), 1);
            QCOMPARE(first.measured(), 1);
            QCOMPARE(QString::fromStdString(first.save()), QString());
        }
        measure.choice = 1;  // a new measurement would now say otherwise
        dp::KernelChoices second;
        second.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(second.choose("conv a", 0, measure.fn()), 2);
        QCOMPARE(measure.calls.load(), 1);
        QCOMPARE(second.measured(), 0);
        QCOMPARE(second.choose("conv b", 0, measure.fn()), 1);  // a new shape is measured
        QCOMPARE(measure.calls.load(), 2);
    }

    void aCorruptFileIsRebuiltNotFatal() {
        std::filesystem::create_directories(file().parent_path());
        for (const char* bad : {"garbage\n", "# DP Workbench kernel choices v1: key<TAB>choice\nconv a\tx\n",
                                "# DP Workbench kernel choices v1: key<TAB>choice\nno tab\n", ""}) {
            std::ofstream(file()) << bad;
            CountingMeasure measure;
            dp::KernelChoices choices;
            choices.configure(file(), dp::KernelTuning::cached);
            QCOMPARE(choices.choose("conv a", 0, measure.fn()), 2);
            QCOMPARE(measure.calls.load(), 1);
            QCOMPARE(QString::fromStdString(choices.save()), QString());
            QVERIFY(read_text(file()).ends_with("conv a\t2\n"));
        }
    }

    void anUnwritableFolderIsReportedNotFatal() {
        std::filesystem::create_directories(file().parent_path());
        std::ofstream(file().parent_path() / "file") << "x";
        dp::KernelChoices choices;
        choices.configure(file().parent_path() / "file" / "kernel-choices.tsv", dp::KernelTuning::cached);
        CountingMeasure measure;
        QCOMPARE(choices.choose("conv a", 0, measure.fn()), 2);
        QVERIFY(!choices.save().empty());
        QCOMPARE(choices.choose("conv a", 0, measure.fn()), 2);  // kept in memory
        QCOMPARE(measure.calls.load(), 1);
    }

    void retuneMeasuresAgainAndOverwrites() {
        CountingMeasure measure;
        dp::KernelChoices choices;
        choices.configure(file(), dp::KernelTuning::cached);
        choices.choose("conv a", 0, measure.fn());
        choices.save();
        measure.choice = 0;
        choices.retune(true);
        QCOMPARE(choices.tuning(), dp::KernelTuning::retune);
        QCOMPARE(choices.choose("conv a", 1, measure.fn()), 0);
        QCOMPARE(choices.choose("conv a", 1, measure.fn()), 0);  // once per retuned run
        QCOMPARE(measure.calls.load(), 2);
        choices.save();
        choices.retune(false);  // the next run uses the retuned choice
        QCOMPARE(choices.choose("conv a", 1, measure.fn()), 0);
        dp::KernelChoices later;
        later.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(later.choose("conv a", 1, measure.fn()), 0);
        QCOMPARE(measure.calls.load(), 2);
    }

    // D38: two runs started together on a cold cache measured different
    // kernels and both said "deterministic". A choice is written as soon as
    // it is measured, under a lock between processes, and a process that
    // meets the same key reads it instead of measuring its own.
    void aSecondProcessUsesTheFirstsChoice() {
        CountingMeasure measure;
        dp::KernelChoices mine, theirs;
        mine.configure(file(), dp::KernelTuning::cached);
        theirs.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(mine.choose("conv a", 0, measure.fn()), 2);
        measure.choice = 1;
        QCOMPARE(theirs.choose("conv a", 0, measure.fn()), 2);  // mine's, not measured
        QCOMPARE(measure.calls.load(), 1);
        QCOMPARE(theirs.choose("conv b", 0, measure.fn()), 1);
        QCOMPARE(QString::fromStdString(theirs.save()), QString());
        QCOMPARE(QString::fromStdString(mine.save()), QString());
        dp::KernelChoices later;
        later.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(later.choose("conv a", 0, measure.fn()), 2);
        QCOMPARE(later.choose("conv b", 0, measure.fn()), 1);
    }

    // D38: while another process measures (it holds the lock), a process
    // that needs a choice waits, then takes what the other wrote.
    void aProcessWaitsForTheOneMeasuring() {
        std::filesystem::create_directories(file().parent_path());
        CountingMeasure measure;
        dp::KernelChoices waiting;
        waiting.configure(file(), dp::KernelTuning::cached);
        std::atomic<int> chosen{-1};
        std::thread other_process;
        {
            const dp::FileLock measuring(dp::kernel_cache_lock_path(file()));
            QVERIFY(measuring.held());
            other_process = std::thread([&] { chosen = waiting.choose("conv a", 0, measure.fn()); });
            std::ofstream(file()) << "# DP Workbench kernel choices v1: key<TAB>choice\nconv a\t1\n";
        }
        other_process.join();
        QCOMPARE(chosen.load(), 1);
        QCOMPARE(measure.calls.load(), 0);
    }

    // D35: an entry with a choice the op cannot make (an edited file) was
    // used as its fallback for ever; it is measured again and rewritten.
    void anImpossibleEntryIsMeasuredAgainAndRewritten() {
        std::filesystem::create_directories(file().parent_path());
        std::ofstream(file()) << "# DP Workbench kernel choices v1: key<TAB>choice\nconv a\t7\nconv b\t1\n";
        const auto possible = [](int choice) { return choice < 4; };
        CountingMeasure measure;
        dp::KernelChoices choices;
        choices.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(choices.choose("conv a", 0, measure.fn(), possible), 2);
        QCOMPARE(choices.choose("conv b", 0, measure.fn(), possible), 1);
        QCOMPARE(measure.calls.load(), 1);
        QCOMPARE(QString::fromStdString(choices.save()), QString());
        QCOMPARE(read_text(file()), std::string("# DP Workbench kernel choices v1: key<TAB>choice\n"
                                                "conv a\t2\nconv b\t1\n"));
    }

    // D18: a pipe at the cache's name hung the read; it is ignored (and
    // left a pipe), the choices measured and kept in memory.
    void aPipeAtTheCacheIsNotRead() {
        std::filesystem::create_directories(file().parent_path());
        QCOMPARE(::mkfifo(file().c_str(), 0644), 0);
        CountingMeasure measure;
        dp::KernelChoices choices;
        choices.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(choices.choose("conv a", 0, measure.fn()), 2);
        const std::string failed = choices.save();
        QVERIFY2(failed.find("is a named pipe") != std::string::npos, failed.c_str());
        QVERIFY(std::filesystem::is_fifo(file()));
    }

    void fixedTuningNeverMeasures() {
        CountingMeasure measure;
        dp::KernelChoices choices;
        choices.configure(file(), dp::KernelTuning::fixed);
        QCOMPARE(choices.choose("conv a", 1, measure.fn()), 1);
        QCOMPARE(measure.calls.load(), 0);
        QCOMPARE(QString::fromStdString(choices.save()), QString());
        QVERIFY(!std::filesystem::exists(file()));
    }

    // cuDNN's algorithms have no timing-free rule: measured even under fixed tuning.
    void anOpWithoutARuleIsMeasuredUnderFixedTuning() {
        CountingMeasure measure;
        dp::KernelChoices choices;
        choices.configure(file(), dp::KernelTuning::fixed);
        QCOMPARE(choices.choose("cudnn a", -1, measure.fn()), 2);
        QCOMPARE(choices.choose("cudnn a", -1, measure.fn()), 2);
        QCOMPARE(measure.calls.load(), 1);
    }

    void convolutionKeysNameMachinePassAndShape() {
        const dp::Conv2dShape shape{.batch = 64, .in_channels = 6, .in_h = 28, .in_w = 28,
                                    .out_channels = 16, .kernel = 5, .stride = 1, .pad = 2};
        QCOMPARE(QString::fromStdString(dp::conv_choice_key("onednn 2.6.3 avx2 | CPU", "forward", shape)),
                 QString("onednn 2.6.3 avx2 | CPU | conv forward n64 c6x28x28 o16 k5 s1 p2"));
    }

    void deviceThreadsMeetingOneShapeMeasureOnce() {
        CountingMeasure measure;
        dp::KernelChoices choices;
        choices.configure(file(), dp::KernelTuning::cached);
        std::vector<int> seen(4, -1);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                seen[std::size_t(t)] = choices.choose("conv a", 0, [&] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    return measure.fn()();
                });
            });
        for (auto& thread : threads) thread.join();
        QCOMPARE(measure.calls.load(), 1);
        QCOMPARE(seen, std::vector<int>(4, 2));
    }

    void theFastestCandidateByItsBestTime() {
        // Candidate 1 is slow once (noise) but fastest at its best.
        int calls[3] = {};
        const int fastest = dp::fastest_candidate(3, 3, [&](int c) {
            const int call = calls[c]++;
            const int ms = c == 0 ? 6 : c == 1 ? (call == 0 ? 30 : 2) : 4;
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        });
        QCOMPARE(fastest, 1);
        QCOMPARE(calls[0] + calls[1] + calls[2], 9);
    }

    void tuningFromTheEnvironment() {
        qputenv("DP_KERNEL_TUNING", "fixed");
        QCOMPARE(dp::kernel_tuning_from_environment(), dp::KernelTuning::fixed);
        qputenv("DP_KERNEL_TUNING", "fast");
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::kernel_tuning_from_environment());
        // D19 (issue 32): retune was accepted, then undone by the run's own
        // --retune setting, and the record said deterministic.
        qputenv("DP_KERNEL_TUNING", "retune");
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::kernel_tuning_from_environment());
        qunsetenv("DP_KERNEL_TUNING");
        QCOMPARE(dp::kernel_tuning_from_environment(), dp::KernelTuning::cached);
    }
};

QTEST_GUILESS_MAIN(TestKernelChoices)
#include "test_kernel_choices.moc"
