#include "study/study_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "core/format.h"
#include "core/median.h"

namespace dp {
namespace {

// A run's steady epochs' seconds (after the first; the only one of a one-epoch run).
void append_steady_seconds(const RunRecord& record, std::vector<double>& seconds) {
    const std::size_t first = record.epochs.size() > 1 ? 1 : 0;
    for (std::size_t i = first; i < record.epochs.size(); ++i)
        seconds.push_back(record.epochs[i].seconds);
}

// A number as C's "%.*g" in the "C" locale, whatever the process's: CSV
// and scripts read '.'; NaN is left empty.
std::string csv_number(double value, int precision = 6) {
    if (!std::isfinite(value)) return {};
    char text[64];
    const auto [end, error] =
        std::to_chars(text, text + sizeof text, value, std::chars_format::general, precision);
    return error == std::errc() ? std::string(text, end) : std::string();
}

struct Cell {
    int batch_size;
    float lr;
    std::map<int, std::vector<const RunRecord*>> runs;  // by device count, repeats in order
};

}  // namespace

std::vector<StudyRow> study_table(const std::vector<RunRecord>& records) {
    std::vector<Cell> cells;
    for (const RunRecord& record : records) {
        if (record.status != RunStatus::finished || record.epochs.empty()) continue;
        const auto cell = std::find_if(cells.begin(), cells.end(), [&](const Cell& c) {
            return c.batch_size == record.config.batch_size && c.lr == record.config.lr;
        });
        Cell& into = cell != cells.end()
                         ? *cell
                         : cells.emplace_back(Cell{record.config.batch_size, record.config.lr, {}});
        into.runs[record.device_count()].push_back(&record);
    }
    std::vector<StudyRow> rows;
    for (const Cell& cell : cells) {
        const auto& [baseline_devices, baseline_runs] = *cell.runs.begin();
        for (const auto& [devices, runs] : cell.runs) {
            StudyRow row;
            row.devices = devices;
            row.batch_size = cell.batch_size;
            row.lr = cell.lr;
            row.repeats = int(runs.size());
            row.baseline_devices = baseline_devices;
            std::vector<double> seconds, accuracies, speedups;
            ComparisonRow only_pair;  // the one repeat's row, for its range
            for (std::size_t r = 0; r < runs.size(); ++r) {
                const RunRecord& run = *runs[r];
                append_steady_seconds(run, seconds);
                accuracies.push_back(run.summary().final_test_acc());
                row.busy = row.busy || run.busy;
                if (r >= baseline_runs.size()) continue;
                const RunRecord& baseline = *baseline_runs[r];
                only_pair = compare_runs({baseline.config, run.config},
                                         {baseline.summary(), run.summary()})
                                .back();
                speedups.push_back(only_pair.speedup);
            }
            const double median_seconds = median_of(seconds);  // sorts them
            row.seconds_per_epoch = median_seconds;
            row.seconds_min = seconds.front();
            row.seconds_max = seconds.back();
            row.final_test_acc = median_of(accuracies);
            if (speedups.empty()) {
                row.speedup = row.speedup_min = row.speedup_max = row.efficiency = std::nan("");
            } else {
                // As dp-train --compare quotes it: over repeats, or one run's steady epochs.
                const RepeatedSpeedup speedup = speedups.size() > 1
                                                    ? summarize_speedups(devices, speedups)
                                                    : RepeatedSpeedup{devices, only_pair.speedup,
                                                                      only_pair.speedup_min,
                                                                      only_pair.speedup_max, 1};
                row.speedup = speedup.median;
                row.speedup_min = speedup.min;
                row.speedup_max = speedup.max;
                row.efficiency = row.speedup * baseline_devices / devices;
            }
            rows.push_back(row);
        }
    }
    return rows;
}

std::string format_study_table(const std::vector<StudyRow>& rows) {
    std::string out = format("%7s %6s %8s %24s %40s %10s %8s\n", "devices", "batch", "lr",
                             "s/epoch (range)", "speedup (range)", "efficiency", "test acc");
    for (const StudyRow& row : rows) {
        const std::string seconds =
            format("%.3f (%.3f-%.3f)", row.seconds_per_epoch, row.seconds_min, row.seconds_max);
        std::string speedup = "-", efficiency = "-";
        if (std::isfinite(row.speedup)) {
            speedup = is_baseline(row)
                          ? std::string("baseline")
                          : format("%.2fx (%s) %s", row.speedup,
                                   speedup_range_text(row.speedup_min, row.speedup_max).c_str(),
                                   speedup_verdict_text(row.verdict()));
            efficiency = format("%.0f%%", 100 * row.efficiency);
        }
        out += format("%7d %6d %8g %24s %40s %10s %8.3f%s\n", row.devices, row.batch_size,
                      double(row.lr), seconds.c_str(), speedup.c_str(), efficiency.c_str(),
                      row.final_test_acc, row.busy ? "  (busy)" : "");
    }
    return out;
}

std::string study_table_csv(const std::vector<StudyRow>& rows) {
    std::string out =
        "devices,batch_size,lr,repeats,seconds_per_epoch,seconds_per_epoch_min,"
        "seconds_per_epoch_max,speedup,speedup_min,speedup_max,verdict,baseline_devices,"
        "efficiency,final_test_acc,busy\n";
    for (const StudyRow& row : rows) {
        const bool has_speedup = std::isfinite(row.speedup);
        out += std::to_string(row.devices) + "," + std::to_string(row.batch_size) + "," +
               csv_number(row.lr) + "," + std::to_string(row.repeats) + "," +
               csv_number(row.seconds_per_epoch) + "," + csv_number(row.seconds_min) + "," +
               csv_number(row.seconds_max) + "," + csv_number(row.speedup) + "," +
               csv_number(row.speedup_min) + "," + csv_number(row.speedup_max) + "," +
               (has_speedup && !is_baseline(row) ? speedup_verdict_text(row.verdict()) : "") + "," +
               std::to_string(row.baseline_devices) + "," + csv_number(row.efficiency) + "," +
               csv_number(row.final_test_acc) + "," + (row.busy ? "true" : "false") + "\n";
    }
    return out;
}

}  // namespace dp
