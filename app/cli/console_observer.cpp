#include "cli/console_observer.h"

#include <cstdio>

#include "backend/kernel_choices.h"
#include "config/config_fields.h"
#include "core/format.h"

namespace dp {

ConsoleObserver::ConsoleObserver(Options options)
    : options_(std::move(options)), progress_(stderr) {}

void ConsoleObserver::on_log(const std::string& line) {
    if (options_.quiet) return;
    progress_.clear();
    // A warning is a diagnostic: on stderr, as dp-train's own, not among the results.
    if (line.starts_with("warning: ")) {
        std::fprintf(stderr, "dp-train: %s\n", line.c_str());
        return;
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

void ConsoleObserver::on_batch(const BatchProgress& progress) {
    if (!options_.quiet) progress_.update(progress, options_.epochs);
}

void ConsoleObserver::on_step(const StepReport& report) {
    if (!options_.verbose || options_.quiet) return;
    step_totals_.resize(report.devices.size());
    for (std::size_t d = 0; d < report.devices.size(); ++d) step_totals_[d] += report.devices[d];
    ++steps_;
}

void ConsoleObserver::on_epoch(const EpochMetrics& m) {
    if (options_.quiet) return;
    progress_.clear();
    std::printf("%s\n", epoch_line(m, options_.epochs).c_str());
    print_step_breakdown();
    print_kernel_choices();
    std::fflush(stdout);
}

void ConsoleObserver::on_finished(const RunSummary& summary) {
    summary_ = summary;
}

void ConsoleObserver::on_failed(const std::string& message) {
    failure_ = render_settings(message, flag_or_label);  // dp-train names settings by their flags
    progress_.clear();
    std::fprintf(stderr, "dp-train: %s%s\n", options_.failure_prefix.c_str(), failure_.c_str());
    std::fflush(stderr);
}

void ConsoleObserver::print_kernel_choices() {
    // After the first epoch, which met every training shape.
    if (!options_.verbose || kernels_printed_) return;
    kernels_printed_ = true;
    for (const KernelChoiceUse& use : kernel_choices().used()) {
        // The key's op and shape: its machine part is the same on every line.
        const auto op = use.key.rfind(" | ");
        const std::string error = use.relative_error
                                      ? format("%.1e of float64", *use.relative_error)
                                      : std::string("error not measured");
        const std::string source = use.measured ? "measured now: " + use.note
                                   : use.note.empty() ? std::string("from the cache")
                                                      : use.note;
        std::printf("  kernel %s: %d, %s, %s\n",
                    use.key.substr(op == std::string::npos ? 0 : op + 3).c_str(), use.choice,
                    error.c_str(), source.c_str());
    }
}

void ConsoleObserver::print_step_breakdown() {
    if (steps_ == 0) return;
    for (std::size_t d = 0; d < step_totals_.size(); ++d) {
        const auto& t = step_totals_[d];
        const double ms = 1000.0 / steps_;
        // A straggler's wait on the device that has one (config/slow_devices.h).
        const std::string wait =
            t.straggler_wait > 0 ? format(", slow-device wait %.2f ms", t.straggler_wait * ms) : "";
        print(stdout, "  device %zu: shard %.0f, data %.2f ms, forward %.2f ms, backward %.2f ms%s, "
                      "all-reduce %.2f ms, update %.2f ms\n",
              d, double(t.shard) / steps_, t.data * ms, t.forward * ms, t.backward * ms,
              wait.c_str(), t.allreduce * ms, t.update * ms);
    }
    step_totals_.clear();
    steps_ = 0;
}

}  // namespace dp
