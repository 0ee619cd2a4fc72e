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

std::string row_json(const ComparisonRow& row) {
    return object({{"devices", std::to_string(row.devices)},
                   {"global_batch", std::to_string(row.global_batch)},
                   // The float the run trained with: 0.2, not 0.200000003.
                   {"lr", json_number(float(row.lr))},
                   {"seconds_per_epoch", json_number(row.seconds_per_epoch)},
                   {"seconds_per_epoch_min", json_number(row.seconds_min)},
                   {"seconds_per_epoch_max", json_number(row.seconds_max)},
                   {"speedup", json_number(row.speedup)},
                   {"efficiency", json_number(row.efficiency)},
                   {"final_test_acc", json_number(row.final_test_acc)},
                   {"parameter_drift", json_number(row.parameter_drift)}});
}

std::string gap_json(const SpeedupGap& gap) {
    std::vector<std::string> parts;
    for (const GapPart& part : gap.parts)
        parts.push_back(object({{"name", json_string(part.name)},
                                {"seconds", json_number(part.seconds)},
                                {"share", json_number(gap.share(part))},
                                {"advice", json_string(part.advice)}}));
    return "{\"devices\": " + std::to_string(gap.devices) +
           ", \"measured\": " + json_number(gap.measured) + ", \"ideal\": " + json_number(gap.ideal) +
           ", \"gap\": " + json_number(gap.gap()) + ",\n      \"parts\": " + array(parts, "      ") +
           ",\n      \"verdict\": " + json_string(gap.verdict()) + "}";
}

}  // namespace

std::string comparison_report_json(const std::vector<ComparisonRow>& rows,
                                   const std::vector<SpeedupGap>& gaps) {
    std::vector<std::string> run_items, gap_items;
    for (const ComparisonRow& row : rows) run_items.push_back(row_json(row));
    for (const SpeedupGap& gap : gaps) gap_items.push_back(gap_json(gap));
    return "{\n  \"format\": \"dp-train comparison report\",\n  \"version\": 1,\n  \"runs\": " +
           array(run_items, "  ") + ",\n  \"speedup_gaps\": " + array(gap_items, "  ") + "\n}\n";
}

void write_comparison_report(const std::filesystem::path& file,
                             const std::vector<ComparisonRow>& rows,
                             const std::vector<SpeedupGap>& gaps) {
    AtomicFile out(file);
    out.write(comparison_report_json(rows, gaps));
    out.commit();
}

}  // namespace dp
