#include "scaling/comparison_report.h"

#include <utility>

#include "io/atomic_file.h"
#include "io/json.h"

namespace dp {
namespace {

// {"key": value, ...} from members whose values are JSON text already.
std::string object(const std::vector<std::pair<const char*, std::string>>& members) {
    std::string out = "{";
    for (std::size_t i = 0; i < members.size(); ++i)
        out += (i ? ", " : "") + json_string(members[i].first) + ": " + members[i].second;
    return out + "}";
}

// [item, ...] on lines of their own, indented under `indent`.
std::string array(const std::vector<std::string>& items, const std::string& indent) {
    if (items.empty()) return "[]";
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? ",\n" : "\n") + indent + "  " + items[i];
    return out + "\n" + indent + "]";
}

std::string load_json(const MachineLoad& load) {
    if (!load.known) return "null";
    return object({{"other_cores", json_number(load.other_cores)},
                   {"load_average", json_number(load.load_average)},
                   {"cores", std::to_string(load.cores)},
                   {"busy", load.busy() ? "true" : "false"}});
}

std::string row_json(const ComparisonRow& row) {
    return object({{"devices", std::to_string(row.devices)},
                   {"global_batch", std::to_string(row.global_batch)},
                   // The float the run trained with: 0.2, not 0.200000003.
                   {"lr", json_number(float(row.lr))},
                   {"seconds_per_epoch", json_number(row.seconds_per_epoch)},
                   {"seconds_per_epoch_min", json_number(row.seconds_min)},
                   {"seconds_per_epoch_max", json_number(row.seconds_max)},
                   {"speedup", json_number(row.speedup)},
                   {"speedup_min", json_number(row.speedup_min)},
                   {"speedup_max", json_number(row.speedup_max)},
                   {"efficiency", json_number(row.efficiency)},
                   {"final_test_acc", json_number(row.final_test_acc)},
                   {"parameter_drift", json_number(row.parameter_drift)},
                   {"load", load_json(row.load)}});
}

std::string rows_json(const std::vector<ComparisonRow>& rows, const std::string& indent) {
    std::vector<std::string> items;
    for (const ComparisonRow& row : rows) items.push_back(row_json(row));
    return array(items, indent);
}

std::string speedup_json(const RepeatedSpeedup& speedup) {
    return object({{"devices", std::to_string(speedup.devices)},
                   {"median", json_number(speedup.median)},
                   {"min", json_number(speedup.min)},
                   {"max", json_number(speedup.max)},
                   {"repeats", std::to_string(speedup.repeats)},
                   {"range_from", json_string(speedup.repeats > 1 ? "repeats" : "steady epochs")},
                   {"verdict", json_string(speedup_verdict_text(speedup.verdict()))}});
}

std::string gap_json(const SpeedupGap& gap) {
    std::vector<std::string> parts;
    for (const GapPart& part : gap.parts)
        parts.push_back(object({{"name", json_string(part.name)},
                                {"seconds", json_number(part.seconds)},
                                {"share", json_number(gap.share(part))},
                                {"within_noise", part.noise ? "true" : "false"},
                                {"advice", json_string(part.advice)}}));
    return "{\"devices\": " + std::to_string(gap.devices) +
           ", \"measured\": " + json_number(gap.measured) + ", \"ideal\": " + json_number(gap.ideal) +
           ", \"gap\": " + json_number(gap.gap()) + ", \"noise\": " + json_number(gap.noise) +
           ", \"lost\": " + json_number(gap.lost()) + ",\n      \"parts\": " + array(parts, "      ") +
           ",\n      \"verdict\": " + json_string(gap.verdict()) + "}";
}

}  // namespace

std::string comparison_report_json(const std::vector<std::vector<ComparisonRow>>& repeats,
                                   const std::vector<SpeedupGap>& gaps) {
    std::vector<std::string> speedup_items, repeat_items, gap_items;
    const std::vector<RepeatedSpeedup> speedups = repeated_speedups(repeats);
    for (std::size_t i = 1; i < speedups.size(); ++i) speedup_items.push_back(speedup_json(speedups[i]));
    for (std::size_t r = 0; r < repeats.size(); ++r)
        repeat_items.push_back("{\"repeat\": " + std::to_string(r + 1) +
                               ", \"runs\": " + rows_json(repeats[r], "    ") + "}");
    for (const SpeedupGap& gap : gaps) gap_items.push_back(gap_json(gap));
    const std::vector<ComparisonRow> no_rows;
    return "{\n  \"format\": \"dp-train comparison report\",\n  \"version\": 2,\n"
           "  \"statistic\": \"seconds per epoch: the median of each run's steady epochs (after "
           "the first), with their range; speedup: the median and range over the repeats\",\n"
           "  \"speedups\": " + array(speedup_items, "  ") +
           ",\n  \"repeats\": " + array(repeat_items, "  ") +
           ",\n  \"runs\": " + rows_json(repeats.empty() ? no_rows : repeats.back(), "  ") +
           ",\n  \"speedup_gaps\": " + array(gap_items, "  ") + "\n}\n";
}

void write_comparison_report(const std::filesystem::path& file,
                             const std::vector<std::vector<ComparisonRow>>& repeats,
                             const std::vector<SpeedupGap>& gaps) {
    AtomicFile out(file);
    out.write(comparison_report_json(repeats, gaps));
    out.commit();
}

}  // namespace dp
