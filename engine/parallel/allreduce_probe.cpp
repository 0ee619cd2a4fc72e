#include "parallel/allreduce_probe.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/error.h"
#include "devices/device.h"
#include "parallel/communicator.h"

namespace dp {
namespace {

using Clock = std::chrono::steady_clock;

// LeNet's gradients (516 KB) lie inside the range; ResNet-18's 44.7 MB go
// out in 25 MB buckets, whose cost the line extends to.
constexpr double kSizesBytes[] = {4 << 10, 64 << 10, 512 << 10, 2 << 20};
constexpr int kMaxRepetitions = 7;
constexpr int kAllReducesPerTiming = 4;  // a timing of one alone is mostly clock and wake-up noise

void pin_to(int core) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
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
    const std::vector<int> cores = usable_cores();
    AllReduceProbe probe{strategy, ranks, int(cores.size()), {}, {}};
    const auto communicator = make_thread_communicator(strategy, ranks);
    if (ranks == 1) return probe;

    const auto deadline = Clock::now() + std::chrono::duration<double>(budget_seconds);
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
            std::vector<std::thread> threads;
            for (int rank = 0; rank < ranks; ++rank)
                threads.emplace_back([&, rank] {
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
            for (std::thread& thread : threads) thread.join();
            seconds[s].push_back(measured);
        }
    }
    for (std::size_t s = 0; s < std::size(kSizesBytes); ++s)
        probe.samples.push_back({kSizesBytes[s], median(seconds[s])});
    probe.fit = fit_latency_bandwidth(probe.samples);
    return probe;
}

}  // namespace dp
