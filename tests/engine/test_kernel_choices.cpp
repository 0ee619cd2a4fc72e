// The kernel cache's promises: a choice is measured once per machine, read
// back by every later process, rebuilt when the file is bad, measured again
// only when asked, never measured under fixed tuning, and measured once when
// several device threads meet the same shape together.
#include <sys/stat.h>

#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <fstream>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "backend/conv_accuracy.h"
#include "backend/kernel_choices.h"
#include "backend/reference/reference_ops.h"
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

std::vector<float> uniform(std::size_t n, unsigned seed, float low = -1, float high = 1) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> draw(low, high);
    std::vector<float> values(n);
    for (float& v : values) v = draw(rng);
    return values;
}

// ResNet-18's 64->64 3x3 convolution at 28x28, at batch 16: inputs as a
// ReLU gives them (non-negative), weights and gradients of either sign.
const dp::Conv2dShape kBlock{.batch = 16, .in_channels = 64, .in_h = 28, .in_w = 28,
                             .out_channels = 64, .kernel = 3, .stride = 1, .pad = 1};

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
        QCOMPARE(read_text(file()),
                 std::string("# DP Workbench kernel choices v2: key<TAB>choice[<TAB>relative error]\n"
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
            // Gaps of tens of ms: a sleep overshoots by several on a loaded machine.
            const int ms = c == 0 ? 60 : c == 1 ? (call == 0 ? 300 : 2) : 40;
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        });
        QCOMPARE(fastest, 1);
        QCOMPARE(calls[0] + calls[1] + calls[2], 9);
    }

    // Issue 40: the cache keeps each choice's measured error beside it,
    // reads it back, and still reads v1 files, whose entries have none.
    void theMeasuredErrorIsKeptAndReadBack() {
        {
            dp::KernelChoices first;
            first.configure(file(), dp::KernelTuning::cached);
            QCOMPARE(first.choose("conv a", 0, [] { return dp::MeasuredChoice(2, 3.5e-7, "notes"); }, {}, true), 2);
            const auto used = first.used();
            QCOMPARE(used.size(), std::size_t(1));
            QVERIFY(used[0].measured);
            QCOMPARE(*used[0].relative_error, 3.5e-7);
            QCOMPARE(QString::fromStdString(used[0].note), QString("notes"));
        }
        QVERIFY(read_text(file()).ends_with("conv a\t2\t3.500e-07\n"));
        CountingMeasure measure;
        dp::KernelChoices second;
        second.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(second.choose("conv a", 0, measure.fn(), {}, true), 2);
        QCOMPARE(measure.calls.load(), 0);
        const auto used = second.used();
        QVERIFY(!used[0].measured);
        QCOMPARE(*used[0].relative_error, 3.5e-7);
    }

    // A v1 entry was chosen by timing alone: read, and used where no error
    // is needed; where one is (a precision with a bound), measured again
    // and rewritten with its error.
    void aV1EntryWithoutAnErrorIsMeasuredAgainWhereOneIsNeeded() {
        std::filesystem::create_directories(file().parent_path());
        std::ofstream(file()) << "# DP Workbench kernel choices v1: key<TAB>choice\nconv a\t3\nconv b\t3\n";
        int calls = 0;
        const auto measure = [&] { ++calls; return dp::MeasuredChoice(1, 2e-7); };
        dp::KernelChoices choices;
        choices.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(choices.choose("conv a", 0, measure, {}, false), 3);
        QCOMPARE(calls, 0);
        QVERIFY(!choices.used()[0].relative_error);
        QCOMPARE(choices.choose("conv b", 0, measure, {}, true), 1);
        QCOMPARE(calls, 1);
        QCOMPARE(QString::fromStdString(choices.save()), QString());
        const std::string text = read_text(file());
        QVERIFY2(text.find("conv a\t3\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("conv b\t1\t2.000e-07\n") != std::string::npos, text.c_str());
        // A malformed error makes the file untrusted, as any malformed line.
        std::ofstream(file()) << "# DP Workbench kernel choices v2: key<TAB>choice[<TAB>relative error]\n"
                                 "conv a\t3\tnan\n";
        dp::KernelChoices later;
        later.configure(file(), dp::KernelTuning::cached);
        QCOMPARE(later.choose("conv a", 0, measure, {}, false), 1);
        QCOMPARE(calls, 2);
    }

    // The float64 sample agrees with the whole pass computed by the
    // reference loops, and measures an output's distance from it.
    void theReferenceSampleIsTheFloat64Pass() {
        const dp::Conv2dShape s{.batch = 3, .in_channels = 5, .in_h = 9, .in_w = 8,
                                .out_channels = 4, .kernel = 3, .stride = 2, .pad = 1};
        const auto x = uniform(s.input_size(), 1, 0, 1), w = uniform(s.weight_size(), 2),
                   dy = uniform(s.output_size(), 3), b = uniform(std::size_t(s.out_channels), 4);
        std::vector<float> y(s.output_size()), dx(s.input_size()), dw(s.weight_size()), db(s.out_channels);
        dp::reference::conv2d_forward(s, x.data(), w.data(), b.data(), y.data());
        dp::reference::conv2d_backward_data(s, dy.data(), w.data(), dx.data());
        dp::reference::conv2d_backward_weights(s, x.data(), dy.data(), dw.data(), db.data());
        const dp::ConvReference forward(s, dp::ConvPass::forward, x.data(), w.data(), b.data());
        const dp::ConvReference backward_data(s, dp::ConvPass::backward_data, dy.data(), w.data());
        const dp::ConvReference backward_weights(s, dp::ConvPass::backward_weights, x.data(), dy.data());
        // Small enough to be sampled whole: every output, float32's rounding apart.
        QCOMPARE(forward.sampled_outputs(), s.output_size());
        QCOMPARE(backward_weights.sampled_outputs(), s.weight_size());
        for (const auto& [reference, out] : {std::pair{&forward, &y}, {&backward_data, &dx}, {&backward_weights, &dw}}) {
            QVERIFY2(reference->relative_error(out->data()) < 1e-6,
                     qPrintable(QString::number(reference->relative_error(out->data()))));
            std::vector<float> off = *out;
            for (float& v : off) v *= 1.001f;
            QVERIFY(std::abs(reference->relative_error(off.data()) - 1e-3) < 1e-5);
        }
    }

    // Issue 40: a candidate faster by timing but rounding coarser than
    // float32 is refused in fp32 and allowed in fp32-fast; timing cannot
    // decide which is chosen here, as only one candidate is within the bound.
    void anInaccurateCandidateIsRefusedInFp32() {
        const dp::Conv2dShape& s = kBlock;
        const auto x = uniform(s.input_size(), 1, 0, 1), w = uniform(s.weight_size(), 2, -0.05f, 0.05f);
        const auto b = uniform(std::size_t(s.out_channels), 3);
        std::vector<float> exact(s.output_size()), y(s.output_size());
        dp::reference::conv2d_forward(s, x.data(), w.data(), b.data(), exact.data());
        const auto started = std::chrono::steady_clock::now();
        const dp::ConvReference reference(s, dp::ConvPass::forward, x.data(), w.data(), b.data());
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        qInfo("float64 sample: %zu outputs, %zu multiply-adds, %.1f ms", reference.sampled_outputs(),
              reference.multiply_adds(), ms);
        QVERIFY(reference.multiply_adds() <= dp::ConvReference::kMultiplyAddBudget);
        // "perturbing": the exact output off by 1e-4 relative, noise as a
        // transform's rounding is; "direct": the float32 reference loops.
        const std::vector<std::string> names{"perturbing", "direct"};
        const auto noise = uniform(s.output_size(), 5);
        const auto run = [&](int candidate) {
            for (std::size_t i = 0; i < y.size(); ++i)
                y[i] = candidate == 0 ? exact[i] * (1 + 1e-4f * noise[i]) : exact[i];
        };
        const auto output = [&] { return y.data(); };
        const dp::MeasuredChoice fp32 = dp::choose_accurate_fastest(
            reference, dp::conv_error_bound(dp::Precision::fp32), 2, names, run, output);
        QCOMPARE(fp32.choice, 1);
        QVERIFY(*fp32.relative_error < 1e-6);
        QVERIFY2(fp32.note.find("perturbing 5.") != std::string::npos &&
                     fp32.note.find("(refused)") != std::string::npos,
                 fp32.note.c_str());
        const dp::MeasuredChoice fast = dp::choose_accurate_fastest(
            reference, dp::conv_error_bound(dp::Precision::fp32_fast), 2, names, run, output);
        QVERIFY2(fast.note.find("refused") == std::string::npos, fast.note.c_str());
        // bf16's bound is bf16's rounding: the perturbing candidate is within it.
        const dp::MeasuredChoice bf16 = dp::choose_accurate_fastest(
            reference, dp::conv_error_bound(dp::Precision::bf16), 2, names, run, output);
        QVERIFY2(bf16.note.find("refused") == std::string::npos, bf16.note.c_str());
    }

    // When the data make every kernel round worse than the bound (sums that
    // cancel), the most accurate one and those within 2x of it still qualify.
    void theLimitFollowsTheBestCandidate() {
        const std::vector<double> errors{3e-5, 5e-5, 2e-4, -1};
        QCOMPARE(*dp::conv_error_limit(1e-5, errors), 6e-5);
        QCOMPARE(*dp::conv_error_limit(1e-5, std::vector<double>{1e-7, 2e-4}), 1e-5);
        QVERIFY(!dp::conv_error_limit(std::nullopt, errors));
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
