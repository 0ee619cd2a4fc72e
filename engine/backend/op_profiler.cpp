#include "backend/op_profiler.h"

#include <algorithm>
#include <utility>

#include "core/format.h"

namespace dp {
namespace {

thread_local const std::string* current_layer_label = nullptr;

// What the calls outside every layer are: the loss, the update, the data,
// the all-reduce's averaging.
const std::string kOutsideLayers = "outside layers (data, loss, update)";

}  // namespace

LayerScope::LayerScope(const std::string& label)
    : previous_(std::exchange(current_layer_label, &label)) {}
LayerScope::~LayerScope() { current_layer_label = previous_; }
const std::string* LayerScope::current() { return current_layer_label; }

OpProfiler::OpProfiler(std::unique_ptr<Backend> inner, std::size_t max_calls,
                       std::unique_ptr<OpClock> clock)
    : ForwardingBackend(std::move(inner)),
      clock_(clock ? std::move(clock) : this->inner().make_op_clock(2 * max_calls)) {
    calls_.reserve(clock_->capacity() / 2);
}

void OpProfiler::start_step() {
    calls_.clear();
    call_open_ = false;
    recording_ = true;
}

std::size_t OpProfiler::current_layer() {
    const std::string& label = LayerScope::current() ? *LayerScope::current() : kOutsideLayers;
    // Layers repeat in the same order every step: searching from the back finds most at once.
    for (std::size_t i = layers_.size(); i-- > 0;)
        if (layers_[i].label == label) return i;
    layers_.push_back({label});
    return layers_.size() - 1;
}

void OpProfiler::before_op(OpFamily family) {
    if (!recording_) return;
    const std::size_t slot = 2 * calls_.size();
    if (slot + 1 >= clock_->capacity()) {
        ++untimed_;
        return;
    }
    calls_.push_back({family, current_layer()});
    clock_->mark(slot);
    call_open_ = true;
}

void OpProfiler::after_op(OpFamily /*family*/) {
    if (!std::exchange(call_open_, false)) return;
    clock_->mark(2 * calls_.size() - 1);
}

StepGraphAction OpProfiler::run_step(const StepGraphRequest& request, StepWork step) {
    StepGraphRequest timed = request;
    timed.capturable = request.capturable && !recording_;
    return ForwardingBackend::run_step(timed, step);
}

void OpProfiler::end_step() {
    if (!recording_) return;
    recording_ = false;
    ++steps_;
    if (calls_.empty()) return;
    for (std::size_t i = 0; i < calls_.size(); ++i) {
        const double seconds = clock_->seconds(2 * i, 2 * i + 1);
        family_seconds_[std::size_t(calls_[i].family)] += seconds;
        ++family_calls_[std::size_t(calls_[i].family)];
        layers_[calls_[i].layer].seconds += seconds;
        ++layers_[calls_[i].layer].calls;
    }
    step_seconds_ += clock_->seconds(0, 2 * calls_.size() - 1);
}

OpProfile OpProfiler::profile() const {
    OpProfile profile;
    profile.steps = steps_;
    profile.untimed_calls = untimed_;
    if (steps_ == 0) return profile;
    const double per_step = 1.0 / double(steps_);
    double total = 0;
    for (double seconds : family_seconds_) total += seconds;
    profile.op_seconds = total * per_step;
    profile.step_seconds = step_seconds_ * per_step;
    const auto share = [total](double seconds) { return total > 0 ? seconds / total : 0.0; };
    for (int f = 0; f < kOpFamilies; ++f)
        if (family_calls_[std::size_t(f)] > 0)
            profile.families.push_back({op_family_name(OpFamily(f)),
                                        family_seconds_[std::size_t(f)] * per_step,
                                        share(family_seconds_[std::size_t(f)]),
                                        double(family_calls_[std::size_t(f)]) * per_step});
    std::stable_sort(profile.families.begin(), profile.families.end(),
                     [](const OpProfileRow& a, const OpProfileRow& b) { return a.seconds > b.seconds; });
    for (const LayerTotal& layer : layers_)
        if (layer.calls > 0)
            profile.layers.push_back({layer.label, layer.seconds * per_step, share(layer.seconds),
                                      double(layer.calls) * per_step});
    return profile;
}

std::string OpProfile::table(const std::string& title) const {
    std::string text = format("%s, mean of %lld step%s: %.3f ms in backend calls, %.3f ms from the "
                              "first call's start to the last's end\n",
                              title.c_str(), static_cast<long long>(steps), steps == 1 ? "" : "s",
                              op_seconds * 1e3, step_seconds * 1e3);
    const auto rows = [&text](const char* heading, const std::vector<OpProfileRow>& list) {
        std::size_t width = std::string(heading).size();
        for (const OpProfileRow& row : list) width = std::max(width, row.name.size());
        text += format("  %-*s %10s %7s %7s\n", int(width), heading, "ms/step", "share", "calls");
        for (const OpProfileRow& row : list)
            text += format("  %-*s %10.3f %6.1f%% %7.1f\n", int(width), row.name.c_str(),
                           row.seconds * 1e3, row.share * 100, row.calls);
    };
    rows("op family", families);
    rows("layer", layers);
    if (untimed_calls > 0)
        text += format("  %lld calls beyond the timer's room were not timed\n",
                       static_cast<long long>(untimed_calls));
    text.pop_back();  // a log line's end is its printer's
    return text;
}

}  // namespace dp
