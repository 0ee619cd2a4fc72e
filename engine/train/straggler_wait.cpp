#include "train/straggler_wait.h"

#include <chrono>
#include <thread>

namespace dp {

double wait_as_straggler(double factor, double compute_seconds) {
    if (factor <= 1 || compute_seconds <= 0) return 0;
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>((factor - 1) * compute_seconds));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace dp
