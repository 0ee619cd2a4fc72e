#include "devices/core_sharing_probe.h"

#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "devices/device.h"

namespace dp {
namespace {

using Clock = std::chrono::steady_clock;

// Twelve independent accumulators keep the FMA units' pipelines full, as a
// GEMM microkernel does; the result is returned so nothing is optimized away.
__attribute__((target("avx512f"))) float fma_loop_avx512(long iterations) {
    __m512 acc[12];
    for (__m512& a : acc) a = _mm512_set1_ps(1.0f);
    const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.001f);
    for (long i = 0; i < iterations; ++i)
        for (__m512& a : acc) a = _mm512_fmadd_ps(a, x, y);
    __m512 sum = acc[0];
    for (int k = 1; k < 12; ++k) sum = _mm512_add_ps(sum, acc[k]);
    float lanes[16];
    _mm512_storeu_ps(lanes, sum);
    float total = 0;
    for (float lane : lanes) total += lane;
    return total;
}

float fma_loop_plain(long iterations) {
    float acc[12];
    std::fill(std::begin(acc), std::end(acc), 1.0f);
    for (long i = 0; i < iterations; ++i)
        for (float& a : acc) a = a * 0.999f + 0.001f;
    float total = 0;
    for (float a : acc) total += a;
    return total;
}

float fma_loop(long iterations) {
    // Without AVX-512 the compiler's vectorized loop stands in (SSE: the
    // FMA units less busy, so sharing shows less).
    return __builtin_cpu_supports("avx512f") ? fma_loop_avx512(iterations) : fma_loop_plain(iterations);
}

void pin_to(int core) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// The slowest of `cores`' times for the loop, all started together.
double time_on(const std::vector<int>& cores, long iterations) {
    std::vector<double> seconds(cores.size());
    std::vector<float> results(cores.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < cores.size(); ++i)
        threads.emplace_back([&, i] {
            pin_to(cores[i]);
            const auto start = Clock::now();
            results[i] = fma_loop(iterations);
            seconds[i] = std::chrono::duration<double>(Clock::now() - start).count();
        });
    for (std::thread& thread : threads) thread.join();
    return *std::max_element(seconds.begin(), seconds.end());
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

CoreSharingProbe probe_core_sharing(double budget_seconds) {
    const std::vector<int> cores = usable_cores();
    CoreSharingProbe probe;
    probe.cores = int(cores.size());
    if (cores.size() < 2) return probe;
    // Size the loop to about a thirtieth of the budget per timing.
    long iterations = 1 << 12;
    while (time_on({cores[0]}, iterations) < budget_seconds / 30 && iterations < (1L << 30))
        iterations *= 2;
    std::vector<double> alone, together;
    for (int repetition = 0; repetition < 5; ++repetition) {  // interleaved against load bursts
        alone.push_back(time_on({cores[0]}, iterations));
        together.push_back(time_on(cores, iterations));
    }
    probe.busy_slowdown = std::max(1.0, median(together) / median(alone));
    return probe;
}

}  // namespace dp
