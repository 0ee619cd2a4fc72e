#include "scaling/prediction_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>

#include "core/checked_math.h"
#include "core/error.h"
#include "core/format.h"

namespace dp {
namespace {

PredictedPoint predict_at(const WorkloadProfile& profile, AllReduceStrategy algorithm,
                          const LinkModel& link, const CoreSharing& sharing, Scaling scaling,
                          int devices) {
    const PredictionSettings settings{algorithm, link, sharing, scaling};
    return predict(profile, settings, {devices}).front();
}

// The measured point of `scaling` on `devices`, if any.
const MeasuredPoint* measured_at(const WorkloadProfile& profile, Scaling scaling, int devices,
                                 const std::vector<MeasuredPoint>& measured) {
    const int per_device = profile.global_batch / std::max(1, profile.measured_devices);
    const std::optional<int> batch =
        scaling == Scaling::strong ? profile.global_batch : checked_multiply(per_device, devices);
    for (const MeasuredPoint& point : measured)
        if (point.devices == devices && point.global_batch == batch) return &point;
    return nullptr;
}

std::string cell(const PredictedPoint& predicted, double one, const MeasuredPoint* measured) {
    std::string text = format("%9.2f %7.2f", predicted.seconds_per_epoch,
                              one / predicted.seconds_per_epoch);
    if (!measured) return text + format(" %9s %6s", "", "");
    const double error = (predicted.seconds_per_epoch - measured->seconds_per_epoch) /
                         measured->seconds_per_epoch;
    return text + format(" %9.2f %+5.0f%%", measured->seconds_per_epoch, 100 * error);
}

}  // namespace

const LinkModel& LinkChoice::at(int devices) const {
    if (links.empty()) throw Error("a prediction needs a link");
    if (counts.empty()) return links.front();
    std::size_t nearest = 0;
    for (std::size_t i = 1; i < counts.size() && i < links.size(); ++i)
        if (std::abs(counts[i] - devices) <= std::abs(counts[nearest] - devices)) nearest = i;
    return links[nearest];
}

std::string format_prediction_table(const WorkloadProfile& profile, AllReduceStrategy algorithm,
                                    const LinkChoice& link, const CoreSharing& sharing,
                                    const std::vector<MeasuredPoint>& measured) {
    std::set<int> counts;
    for (int devices : prediction_device_counts()) counts.insert(devices);
    for (const MeasuredPoint& point : measured) counts.insert(point.devices);
    std::string text = format("%s all-reduce over %s: %s\n", all_reduce_strategy_name(algorithm),
                              link.at(2).name.c_str(), link.at(2).source.c_str());
    text += format("%7s | %-9s %7s %9s %6s | %-9s %7s %9s %6s\n", "devices", "strong", "speedup",
                   "measured", "error", "weak", "speedup", "measured", "error");
    const double strong_one =
        predict_at(profile, algorithm, link.at(1), sharing, Scaling::strong, 1).seconds_per_epoch;
    const double weak_one =
        predict_at(profile, algorithm, link.at(1), sharing, Scaling::weak, 1).seconds_per_epoch;
    for (int devices : counts) {
        const LinkModel& used = link.at(devices);
        text += format("%7d | ", devices) +
                cell(predict_at(profile, algorithm, used, sharing, Scaling::strong, devices),
                     strong_one, measured_at(profile, Scaling::strong, devices, measured)) +
                " | " +
                cell(predict_at(profile, algorithm, used, sharing, Scaling::weak, devices), weak_one,
                     measured_at(profile, Scaling::weak, devices, measured)) +
                "\n";
    }
    return text;
}

}  // namespace dp
