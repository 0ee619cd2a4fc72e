#include "train/train_observer.h"

#include <cstdio>

namespace dp {

double RunSummary::final_test_acc() const { return epochs.empty() ? 0 : epochs.back().test_acc; }

double RunSummary::mean_seconds_per_epoch() const {
    if (epochs.empty()) return 0;
    double total = 0;
    for (const auto& e : epochs) total += e.seconds;
    return total / double(epochs.size());
}

std::string RunSummary::device_list() const {
    std::string names;
    for (const auto& device : devices) names += (names.empty() ? "" : ", ") + device;
    return names;
}

std::string RunSummary::summary_line() const {
    const std::string names = device_list();
    char line[160];
    std::snprintf(line, sizeof line, "test acc: %.2f, %.1f sec/epoch on [%s]", final_test_acc(),
                  mean_seconds_per_epoch(), names.c_str());
    return line;
}

}  // namespace dp
