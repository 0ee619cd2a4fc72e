// Issue 3's rule for the step loop, checked: after the first step, a training
// step (the Trainer's loop, the replica group, the replicas and their
// reducers, the oneDNN backend, on 1 and 2 CPU devices) allocates nothing.
// This binary replaces the global operator new to count every allocation of
// every thread, and tells oneDNN's own apart by their call stacks: oneDNN 2.6
// builds an argument map inside every primitive execution, which no caller
// can avoid (the backend already passes a prebuilt argument list to its C
// API); the test reports those and holds everything else to zero.
#include <QtTest>
#include <QTemporaryDir>

#include <dlfcn.h>
#include <execinfo.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>

#include "data/dataset.h"
#include "train/trainer.h"

namespace {

std::atomic<long> allocations{0};          // outside the oneDNN library
std::atomic<long> library_allocations{0};  // inside it
std::atomic<bool> attributing{false};      // while a run is measured

// Whether the calling code is inside the oneDNN library.
bool called_from_onednn() {
    void* frames[32];
    const int depth = backtrace(frames, 32);
    for (int i = 2; i < depth; ++i) {
        Dl_info info;
        if (dladdr(frames[i], &info) && info.dli_fname && std::strstr(info.dli_fname, "libdnnl"))
            return true;
    }
    return false;
}

void* counted_allocation(std::size_t size, std::size_t alignment) {
    if (attributing.load(std::memory_order_relaxed) && called_from_onednn())
        library_allocations.fetch_add(1, std::memory_order_relaxed);
    else
        allocations.fetch_add(1, std::memory_order_relaxed);
    const std::size_t rounded = (std::max<std::size_t>(size, 1) + alignment - 1) / alignment * alignment;
    void* memory = alignment <= alignof(std::max_align_t) ? std::malloc(rounded)
                                                           : std::aligned_alloc(alignment, rounded);
    if (!memory) throw std::bad_alloc();
    return memory;
}

// The allocation counts when each step ended (on_batch), for the first steps.
class StepAllocationObserver final : public dp::TrainObserver {
public:
    static constexpr int steps = 6;
    void on_batch(const dp::BatchProgress& progress) override {
        if (progress.batch > steps) return;
        counts_[std::size_t(progress.batch - 1)] = allocations.load();
        library_counts_[std::size_t(progress.batch - 1)] = library_allocations.load();
    }
    // Steps from 2 on: step 1 has no start mark.
    long allocations_in_step(int step) const { return in_step(counts_, step); }
    long library_allocations_in_step(int step) const { return in_step(library_counts_, step); }

private:
    using Counts = std::array<long, steps>;
    static long in_step(const Counts& counts, int step) {
        return counts[std::size_t(step - 1)] - counts[std::size_t(step - 2)];
    }
    Counts counts_{}, library_counts_{};
};

}  // namespace

void* operator new(std::size_t size) { return counted_allocation(size, alignof(std::max_align_t)); }
void* operator new[](std::size_t size) { return counted_allocation(size, alignof(std::max_align_t)); }
void* operator new(std::size_t size, std::align_val_t alignment) {
    return counted_allocation(size, std::size_t(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
    return counted_allocation(size, std::size_t(alignment));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return operator new(size);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return operator new[](size);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }

class TestStepAllocations : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        qputenv("DP_CPU_DEVICES", "2");  // two devices on any machine
        void* warm_up[1];
        backtrace(warm_up, 1);  // loads the unwinder now, not inside a counted step
    }

    void stepsAfterTheFirstAllocateNothing_data() {
        QTest::addColumn<int>("devices");
        QTest::addColumn<bool>("traced");
        QTest::newRow("1 device") << 1 << false;
        QTest::newRow("2 devices") << 2 << false;
        // dp-train --trace (and the workbench, when asked): each epoch's room is taken at its start.
        QTest::newRow("2 devices, traced") << 2 << true;
    }
    void stepsAfterTheFirstAllocateNothing() {
        QFETCH(int, devices);
        QFETCH(bool, traced);
        QTemporaryDir folder;
        dp::TrainConfig config;
        config.model = "lenet";
        config.batch_size = 64;
        config.epochs = 1;
        config.limit_train = 64 * StepAllocationObserver::steps;
        config.limit_test = 64;
        config.bucket_mb = 0.1;  // several buckets, so several all-reduces a step
        for (int i = 0; i < devices; ++i) config.devices.push_back("cpu:" + std::to_string(i));
        if (traced) config.trace_path = folder.filePath(QStringLiteral("trace.json")).toStdString();
        StepAllocationObserver observer;
        attributing = true;
        const auto outcome = dp::Trainer(config).run(observer);
        attributing = false;
        QCOMPARE(outcome, dp::RunOutcome::finished);
        for (int step = 2; step <= StepAllocationObserver::steps; ++step)
            QVERIFY2(observer.allocations_in_step(step) == 0,
                     qPrintable(QString("step %1 allocated %2 times outside the oneDNN library")
                                    .arg(step)
                                    .arg(observer.allocations_in_step(step))));
        qInfo("the oneDNN library allocated %ld times in step 2 (inside its execute)",
              observer.library_allocations_in_step(2));
    }
};

QTEST_APPLESS_MAIN(TestStepAllocations)
#include "test_step_allocations.moc"
