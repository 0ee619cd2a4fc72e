#include "record/run_metrics.h"

#include <cmath>

#include "core/format.h"
#include "core/median.h"

namespace dp {

double RunSummary::final_test_acc() const { return epochs.empty() ? 0 : epochs.back().test_acc; }

int RunSummary::timed_epochs() const {
    const int all = int(epochs.size());
    return step_epochs > 0 && step_epochs < all ? step_epochs : all;
}

double RunSummary::timed_epoch_seconds() const {
    double total = 0;
    for (std::size_t i = epochs.size() - std::size_t(timed_epochs()); i < epochs.size(); ++i)
        total += epochs[i].seconds;
    return total;
}

EpochTime epoch_time(const std::vector<EpochMetrics>& epochs) {
    EpochTime time;
    if (epochs.empty()) return time;
    time.first = epochs.front().seconds;
    std::vector<double> steady;
    for (std::size_t i = epochs.size() > 1 ? 1 : 0; i < epochs.size(); ++i)
        steady.push_back(epochs[i].seconds);
    time.median = median_of(steady);  // sorts them
    time.min = steady.front();
    time.max = steady.back();
    time.steady_epochs = int(steady.size());
    return time;
}

std::string RunSummary::device_list() const {
    std::string names;
    for (const auto& device : devices) names += (names.empty() ? "" : ", ") + device;
    return names;
}

std::string epoch_line(const EpochMetrics& m, int planned_epochs) {
    std::string line = format("epoch %d/%d: train loss %.4f, train acc %.3f, ", m.epoch,
                              planned_epochs, m.train_loss, m.train_acc);
    if (!std::isnan(m.test_loss)) line += format("test loss %.4f, ", m.test_loss);
    line += format("test acc %.3f, %.1f sec", m.test_acc, m.seconds);
    return line;
}

std::string RunSummary::summary_line() const {
    const EpochTime time = epoch_time();
    std::string line = format("test acc: %.2f, %.2f sec/epoch on [%s]", final_test_acc(), time.median,
                              device_list().c_str());
    if (time.steady_epochs > 1)
        line += format(" (median of %d steady epochs, %.2f-%.2f)", time.steady_epochs, time.min,
                       time.max);
    else if (epochs.size() > 1)
        line += " (the epoch after the first)";
    else
        line += " (one epoch, its warm-up included)";
    return line;
}

}  // namespace dp
