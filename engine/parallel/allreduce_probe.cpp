#include "parallel/allreduce_probe.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "devices/device.h"
#include "parallel/communicator_factory.h"

namespace dp {
namespace {

using Clock = std::chrono::steady_clock;

// LeNet's gradients (516 KB) lie inside the range; ResNet-18's 44.7 MB go
// out in 25 MB buckets, whose cost the line extends to.
constexpr double kSizesBytes[] = {4 << 10, 64 << 10, 512 << 10, 2 << 20};
constexpr int kMaxRepetitions = 7;
constexpr int kAllReducesPerTiming = 4;  // a timing of one alone is mostly clock and wake-up noise
constexpr double kWakeBytes = 512 << 10;
constexpr double kComputeBeforeWake = 0.01;
constexpr int kMaxWakeRepetitions = 25;

void pin_to(int core) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// Keeps this thread computing for `seconds`, as a device's forward and backward do.
void compute_for(double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    volatile float sink = 1;
    while (Clock::now() < end)
        for (int i = 0; i < 1000; ++i) sink = sink * 0.999f + 0.001f;
}

// Runs body(rank) on `ranks` threads and joins every one of them, whatever
// happens, so that no std::thread is ever destroyed joinable (which calls
// std::terminate): a rank that throws aborts the communicator, so that the
// others leave their collectives too, and its exception is rethrown here
// once all are joined; a thread the system cannot start aborts those
// already started the same way.
template <typename Body>
void run_ranks(int ranks, Communicator& communicator, Body body) {
    std::mutex mutex;
    std::exception_ptr first;
    const auto fail = [&](std::exception_ptr error) {
        {
            const std::lock_guard lock(mutex);
            if (!first) first = std::move(error);
        }
        communicator.abort();
    };
    std::vector<std::thread> threads;
    threads.reserve(std::size_t(ranks));
    try {
        for (int rank = 0; rank < ranks; ++rank)
            threads.emplace_back([&, rank] {
                try {
                    body(rank);
                } catch (...) {
                    fail(std::current_exception());
                }
            });
    } catch (const std::exception& error) {
        fail(std::make_exception_ptr(Error(
            "the all-reduce probe could not start thread " + std::to_string(threads.size() + 1) +
            " of " + std::to_string(ranks) + " (" + error.what() +
            "): this process is short of threads or memory")));
    }
    for (std::thread& thread : threads) thread.join();
    if (first) std::rethrow_exception(first);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

LatencyBandwidthFit fit_latency_bandwidth(std::span<const ProbeSample> samples) {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const ProbeSample& sample : samples) {
        n += 1;
        sx += sample.bytes;
        sy += sample.seconds;
        sxx += sample.bytes * sample.bytes;
        sxy += sample.bytes * sample.seconds;
    }
    const double spread = n * sxx - sx * sx;
    if (n < 2 || spread <= 1e-12 * n * sxx)
        throw Error("fitting latency and bandwidth needs timings of at least 2 different sizes");
    LatencyBandwidthFit fit;
    fit.beta = (n * sxy - sx * sy) / spread;
    fit.alpha = (sy - fit.beta * sx) / n;
    if (fit.alpha < 0) fit = {0, sxy / sxx};  // through the origin
    fit.beta = std::max(0.0, fit.beta);
    return fit;
}

AllReduceProbe probe_all_reduce(const std::string& strategy, int ranks, double budget_seconds) {
    if (ranks < 1) throw Error("an all-reduce probe needs at least 1 rank");
    if (ranks > kMaxProbeRanks)
        throw Error("an all-reduce probe runs at most " + std::to_string(kMaxProbeRanks) +
                    " threads, not " + std::to_string(ranks));
    const std::vector<int> cores = usable_cores();
    AllReduceProbe probe{strategy, ranks, int(cores.size()), {}, {}};
    const auto communicator = make_thread_communicator(parse_all_reduce_strategy(strategy), ranks);
    if (ranks == 1) return probe;

    // Two thirds of the budget for the fit, the rest for the wake-up.
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(budget_seconds * 2 / 3);
    const std::size_t max_floats = std::size_t(kSizesBytes[std::size(kSizesBytes) - 1]) / sizeof(float);
    std::vector<std::vector<float>> buffers(std::size_t(ranks), std::vector<float>(max_floats, 0.f));
    // Sizes interleaved over the repetitions, so that a burst of load on
    // this shared machine spreads over all of them rather than spoiling one.
    std::vector<std::vector<double>> seconds(std::size(kSizesBytes));
    for (int repetition = 0; repetition < kMaxRepetitions; ++repetition) {
        if (repetition > 1 && Clock::now() > deadline) break;
        for (std::size_t s = 0; s < std::size(kSizesBytes); ++s) {
            const std::size_t floats = std::size_t(kSizesBytes[s]) / sizeof(float);
            double measured = 0;
            run_ranks(ranks, *communicator, [&](int rank) {
                pin_to(cores[std::size_t(rank) % cores.size()]);
                float* data = buffers[std::size_t(rank)].data();
                communicator->all_reduce_sum(rank, data, floats);  // lines the ranks up
                const auto start = Clock::now();
                for (int i = 0; i < kAllReducesPerTiming; ++i)
                    communicator->all_reduce_sum(rank, data, floats);
                // Every all-reduce ends at a barrier: rank 0's time is everyone's.
                if (rank == 0)
                    measured = std::chrono::duration<double>(Clock::now() - start).count() /
                               kAllReducesPerTiming;
            });
            seconds[s].push_back(measured);
        }
    }
    for (std::size_t s = 0; s < std::size(kSizesBytes); ++s)
        probe.samples.push_back({kSizesBytes[s], median(seconds[s])});
    probe.fit = fit_latency_bandwidth(probe.samples);

    // One set of threads for the whole wake-up part: like device threads,
    // they have computed for a while by the time they are timed.
    const auto wake_deadline = start + std::chrono::duration<double>(budget_seconds);
    const std::size_t wake_floats = std::size_t(kWakeBytes) / sizeof(float);
    std::vector<std::vector<double>> rank_seconds{std::size_t(ranks)};
    run_ranks(ranks, *communicator, [&](int rank) {
        pin_to(cores[std::size_t(rank) % cores.size()]);
        float* data = buffers[std::size_t(rank)].data();
        for (int repetition = 0; repetition < kMaxWakeRepetitions; ++repetition) {
            // Every rank decides to go on or stop alike: rank 0 reads the
            // clock and broadcasts its answer.
            float go_on = rank == 0 && (repetition < 3 || Clock::now() < wake_deadline);
            communicator->broadcast(rank, &go_on, 1, 0);
            if (go_on == 0) break;
            compute_for(kComputeBeforeWake);
            const auto entered = Clock::now();
            communicator->all_reduce_sum(rank, data, wake_floats);
            rank_seconds[std::size_t(rank)].push_back(
                std::chrono::duration<double>(Clock::now() - entered).count());
        }
    });
    // The rank that came last waited only for the all-reduce itself.
    std::vector<double> woken(rank_seconds[0].size());
    for (std::size_t i = 0; i < woken.size(); ++i) {
        woken[i] = rank_seconds[0][i];
        for (const auto& seconds : rank_seconds) woken[i] = std::min(woken[i], seconds[i]);
    }
    probe.wake_seconds =
        std::max(0.0, median(woken) - (probe.fit.alpha + probe.fit.beta * kWakeBytes));
    return probe;
}

}  // namespace dp
