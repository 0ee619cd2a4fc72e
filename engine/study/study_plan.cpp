#include "study/study_plan.h"

#include <utility>

#include "core/error.h"
#include "core/setting_ref.h"
#include "record/run_record.h"
#include "scaling/scaling_comparison.h"

namespace dp {
namespace {

// The first `count` of `devices`: a run of N devices takes the study's first N.
std::vector<DeviceInfo> first_devices(const std::vector<DeviceInfo>& devices, std::size_t count) {
    return {devices.begin(), devices.begin() + std::ptrdiff_t(std::min(count, devices.size()))};
}

// Every point's settings hold on its devices (a scaled lr can overflow,
// a batch can be smaller than its device count), before the first trains.
void validate_points(const StudyPlan& plan) {
    for (const PlannedRun& point : plan.points) validate(point.config, point.devices);
}

}  // namespace

const char* study_kind_name(StudyKind kind) {
    switch (kind) {
    case StudyKind::single_run: return "single run";
    case StudyKind::comparison: return "comparison";
    case StudyKind::sweep: return "sweep";
    case StudyKind::lesson: return "lesson";
    }
    return "";
}

std::optional<StudyKind> parse_study_kind(std::string_view name) {
    for (const StudyKind kind : {StudyKind::single_run, StudyKind::comparison, StudyKind::sweep, StudyKind::lesson})
        if (name == study_kind_name(kind)) return kind;
    return std::nullopt;
}

std::vector<PlannedRun> StudyPlan::runs() const {
    std::vector<PlannedRun> out;
    for (int repeat = 0; repeat < repeats; ++repeat)
        for (std::size_t i = 0; i < points.size(); ++i) {
            if (only_point && *only_point != i) continue;
            PlannedRun run = points[i];
            run.repeat = repeat;
            if (repeat > 0) run.config.retune = false;
            out.push_back(std::move(run));
        }
    return out;
}

StudyPlan single_run_plan(const TrainConfig& config, std::vector<DeviceInfo> devices) {
    StudyPlan plan;
    plan.kind = StudyKind::single_run;
    plan.points.push_back({config, std::move(devices), 0, 0, {}, {}});
    return plan;
}

StudyPlan single_run_plan(const TrainConfig& config) {
    StudyPlan plan = single_run_plan(config, select_devices(config.devices));
    validate_points(plan);
    return plan;
}

StudyPlan comparison_plan(const TrainConfig& base, std::vector<DeviceInfo> devices,
                          const std::vector<int>& device_counts, bool scale_batch_and_lr,
                          int repeats, const std::string& snapshot_dir) {
    StudyPlan plan;
    plan.kind = StudyKind::comparison;
    plan.repeats = repeats;
    // One group for every repeat: the workbench pairs each N-device run with
    // the 1-device run before it and shows the repeats' median and range.
    const std::string group = new_comparison_group();
    for (TrainConfig& config :
         comparison_configs(base, devices, device_counts, scale_batch_and_lr, snapshot_dir)) {
        std::vector<DeviceInfo> run_devices = first_devices(devices, config.devices.size());
        plan.points.push_back({std::move(config), std::move(run_devices), plan.points.size(), 0, group, {}});
    }
    validate_points(plan);
    return plan;
}

StudyPlan comparison_plan(const TrainConfig& base, const std::vector<int>& device_counts,
                          bool scale_batch_and_lr, int repeats, const std::string& snapshot_dir) {
    return comparison_plan(base, select_devices(base.devices), device_counts, scale_batch_and_lr, repeats,
                           snapshot_dir);
}

StudyPlan lesson_plan(const std::vector<RequestedRun>& runs) {
    StudyPlan plan;
    plan.kind = StudyKind::lesson;
    for (const RequestedRun& run : runs)
        plan.points.push_back({run.config, select_devices(run.config.devices), plan.points.size(), 0,
                               run.comparison_group, run.name});
    validate_points(plan);
    return plan;
}

StudyPlan sweep_plan(const TrainConfig& base, std::vector<DeviceInfo> devices,
                     const SweepGrid& grid, int repeats, std::optional<std::size_t> only_point) {
    if (!grid.device_counts.empty() && grid.device_counts.back() > int(devices.size()))
        throw Error("--sweep devices=" + std::to_string(grid.device_counts.back()) + ": only " +
                    std::to_string(devices.size()) +
                    " devices here (see --list-devices); list counts up to " +
                    std::to_string(devices.size()) + ", or name more with " + setting("devices"));
    StudyPlan plan;
    plan.kind = StudyKind::sweep;
    plan.repeats = repeats;
    plan.grid = grid;
    std::string group;
    const SweepPoint* cell = nullptr;  // the (batch size, lr) cell `group` is for
    const std::vector<SweepPoint> points = sweep_points(grid, base, int(devices.size()));
    for (const SweepPoint& point : points) {
        if (!cell || cell->batch_size != point.batch_size || cell->lr != point.lr)
            group = new_comparison_group();
        cell = &point;
        TrainConfig cell_base = base;
        cell_base.batch_size = point.batch_size;
        cell_base.lr = point.lr;
        // The devices and their stragglers as --compare gives them, no drift snapshots.
        TrainConfig config =
            std::move(comparison_configs(cell_base, devices, {point.devices}, false).front());
        plan.points.push_back({std::move(config), first_devices(devices, std::size_t(point.devices)),
                               plan.points.size(), 0, group, {}});
    }
    if (only_point && *only_point >= plan.points.size())
        throw Error("--sweep-index " + std::to_string(*only_point) + " is past the grid's last point: " +
                    "it has " + std::to_string(plan.points.size()) + " (0 to " +
                    std::to_string(plan.points.size() - 1) + ")");
    plan.only_point = only_point;
    validate_points(plan);
    return plan;
}

}  // namespace dp
