#include "record/run_metrics.h"

#include "core/format.h"

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

std::string epoch_line(const EpochMetrics& m, int planned_epochs) {
    return format("epoch %d/%d: train loss %.4f, train acc %.3f, test acc %.3f, %.1f sec", m.epoch,
                  planned_epochs, m.train_loss, m.train_acc, m.test_acc, m.seconds);
}

std::string RunSummary::summary_line() const {
    return format("test acc: %.2f, %.1f sec/epoch on [%s]", final_test_acc(),
                  mean_seconds_per_epoch(), device_list().c_str());
}

}  // namespace dp
