// Bandwidth of the thread communicators' all-reduce in nccl-tests' terms, next
// to this machine's single-thread memcpy bandwidth on the same sizes.
//
//   bench-allreduce [--ranks N] [--min-seconds S]
//
// For each buffer size (4 KiB to 64 MiB in steps of 4, plus ResNet-18's
// 11,175,818 gradient floats) and each strategy, N rank threads all-reduce
// zero-filled buffers (zeros keep the sums finite) over and over: first with
// 1 iteration, then with more until one run lasts at least S seconds (0.2 by
// default); the earlier runs are the warm-up, and each run starts with one
// untimed all-reduce that lines the ranks up. Progress goes to stderr; stdout
// gets one JSON object:
//   machine: nproc, cpu_model, load_avg_1min at start (a high load means noise)
//   ranks, min_seconds
//   sizes[]: bytes, floats, label,
//     memcpy: {iterations, us, gbps}: one thread copying `bytes` (counted once),
//     naive, ring: {iterations, us, algbw_gbps, busbw_gbps}, where us is one
//       all-reduce, algbw = bytes / time and busbw = algbw * 2(N-1)/N, the
//       bytes each rank moves per second in a ring (nccl-tests' definition).
// GB/s are 10^9 bytes per second, as in nccl-tests.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "parallel/communicator_factory.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    int ranks = 2;
    double min_seconds = 0.2;
};

struct BufferSize {
    std::size_t floats;
    std::string label;
};

struct Timing {
    long iterations = 0;
    double seconds_per_iteration = 0;
};

Options parse_options(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
        const std::string value = argv[++i];
        if (flag == "--ranks")
            options.ranks = std::stoi(value);
        else if (flag == "--min-seconds")
            options.min_seconds = std::stod(value);
        else
            throw std::invalid_argument("unknown option " + flag);
    }
    if (options.ranks < 1) throw std::invalid_argument("--ranks must be at least 1");
    if (!(options.min_seconds > 0)) throw std::invalid_argument("--min-seconds must be positive");
    return options;
}

std::vector<BufferSize> buffer_sizes() {
    std::vector<BufferSize> sizes;
    for (std::size_t bytes = 4 << 10; bytes <= std::size_t(64) << 20; bytes *= 4) {
        const std::string label = bytes >= (1 << 20) ? std::to_string(bytes >> 20) + " MiB"
                                                     : std::to_string(bytes >> 10) + " KiB";
        sizes.push_back({bytes / sizeof(float), label});
    }
    sizes.push_back({11'175'818, "ResNet-18 gradients (44.7 MB)"});
    std::sort(sizes.begin(), sizes.end(),
              [](const auto& a, const auto& b) { return a.floats < b.floats; });
    return sizes;
}

// Runs `run(iterations)` (which returns the seconds those iterations took)
// with more iterations each time until one run lasts at least min_seconds.
Timing time_at_least(double min_seconds, const std::function<double(long iterations)>& run) {
    for (long iterations = 1;;) {
        const double seconds = run(iterations);
        if (seconds >= min_seconds) return {iterations, seconds / double(iterations)};
        // Aim 20% past the goal from this run's rate; at least double, at most 100x.
        const double per_iteration = std::max(seconds / double(iterations), 1e-9);
        const auto aimed = long(std::ceil(1.2 * min_seconds / per_iteration));
        iterations = std::clamp(aimed, 2 * iterations, 100 * iterations);
    }
}

// Keeps the compiler from dropping copies whose results are never read.
void memory_is_used() {
    asm volatile("" ::: "memory");
}

Timing time_memcpy(std::size_t floats, double min_seconds) {
    std::vector<float> source(floats, 1.f), destination(floats, 0.f);
    return time_at_least(min_seconds, [&](long iterations) {
        std::memcpy(destination.data(), source.data(), floats * sizeof(float));  // warm-up
        memory_is_used();
        const auto start = Clock::now();
        for (long i = 0; i < iterations; ++i) {
            std::memcpy(destination.data(), source.data(), floats * sizeof(float));
            memory_is_used();
        }
        return std::chrono::duration<double>(Clock::now() - start).count();
    });
}

Timing time_all_reduce(dp::Communicator& communicator, std::size_t floats, double min_seconds) {
    std::vector<std::vector<float>> buffers(std::size_t(communicator.size()),
                                            std::vector<float>(floats, 0.f));
    return time_at_least(min_seconds, [&](long iterations) {
        double seconds = 0;
        std::vector<std::thread> ranks;
        for (int rank = 0; rank < communicator.size(); ++rank) {
            ranks.emplace_back([&, rank] {
                float* data = buffers[std::size_t(rank)].data();
                communicator.all_reduce_sum(rank, data, floats);  // lines the ranks up
                const auto start = Clock::now();
                for (long i = 0; i < iterations; ++i)
                    communicator.all_reduce_sum(rank, data, floats);
                // Every all-reduce ends with a barrier, so rank 0's time is everyone's.
                if (rank == 0)
                    seconds = std::chrono::duration<double>(Clock::now() - start).count();
            });
        }
        for (std::thread& rank : ranks) rank.join();
        return seconds;
    });
}

std::string json_string(const std::string& text) {
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') quoted += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) quoted += c;
    }
    return quoted + "\"";
}

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (!line.starts_with("model name")) continue;
        const std::size_t value = line.find_first_not_of(" \t", line.find(':') + 1);
        return value == std::string::npos ? "" : line.substr(value);
    }
    return "";
}

double load_avg_1min() {
    std::ifstream loadavg("/proc/loadavg");
    double load = -1;
    loadavg >> load;
    return load;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    try {
        options = parse_options(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr,
                     "bench-allreduce: %s\nusage: bench-allreduce [--ranks N] [--min-seconds S]\n",
                     error.what());
        return 2;
    }
    std::vector<std::string> strategies;
    std::vector<std::unique_ptr<dp::Communicator>> communicators;
    for (const dp::AllReduceStrategy strategy : dp::run_strategies()) {
        strategies.push_back(dp::all_reduce_strategy_name(strategy));
        communicators.push_back(dp::make_thread_communicator(strategy, options.ranks));
    }
    const double bus_factor = 2.0 * (options.ranks - 1) / options.ranks;

    std::printf("{\n  \"machine\": {\"nproc\": %u, \"cpu_model\": %s, \"load_avg_1min\": %.2f},\n",
                std::thread::hardware_concurrency(), json_string(cpu_model()).c_str(),
                load_avg_1min());
    std::printf("  \"ranks\": %d,\n  \"min_seconds\": %g,\n  \"sizes\": [", options.ranks,
                options.min_seconds);
    const std::vector<BufferSize> sizes = buffer_sizes();
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        const BufferSize& size = sizes[s];
        const std::size_t bytes = size.floats * sizeof(float);
        const Timing copy = time_memcpy(size.floats, options.min_seconds);
        const double copy_gbps = double(bytes) / copy.seconds_per_iteration / 1e9;
        std::fprintf(stderr, "%-30s memcpy %7.2f GB/s\n", size.label.c_str(), copy_gbps);
        std::printf(
            "%s\n    {\"bytes\": %zu, \"floats\": %zu, \"label\": %s,\n"
            "     \"memcpy\": {\"iterations\": %ld, \"us\": %.2f, \"gbps\": %.3f}",
            s == 0 ? "" : ",", bytes, size.floats, json_string(size.label).c_str(), copy.iterations,
            copy.seconds_per_iteration * 1e6, copy_gbps);
        for (const auto& communicator : communicators) {
            const Timing reduce = time_all_reduce(*communicator, size.floats, options.min_seconds);
            const double algbw = double(bytes) / reduce.seconds_per_iteration / 1e9;
            std::fprintf(stderr, "%-30s %-6s %7.2f GB/s algbw, %7.2f GB/s busbw\n",
                         size.label.c_str(), communicator->name().c_str(), algbw,
                         algbw * bus_factor);
            std::printf(
                ",\n     \"%s\": {\"iterations\": %ld, \"us\": %.2f, \"algbw_gbps\": %.3f, "
                "\"busbw_gbps\": %.3f}",
                communicator->name().c_str(), reduce.iterations, reduce.seconds_per_iteration * 1e6,
                algbw, algbw * bus_factor);
        }
        std::printf("}");
        std::fflush(stdout);
    }
    std::printf("\n  ]\n}\n");
    return 0;
}
