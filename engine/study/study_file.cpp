#include "study/study_file.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <system_error>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/bounded_file.h"
#include "io/json.h"
#include "io/workbench_files.h"
#include "record/run_record_json.h"

namespace dp {
namespace {

constexpr const char* kFormat = "dp-train study";
constexpr int kVersion = 1;

std::string row_json(const StudyRow& row) {
    const bool has_verdict = std::isfinite(row.speedup) && !is_baseline(row);
    return "{\"devices\": " + std::to_string(row.devices) +
           ", \"batch_size\": " + std::to_string(row.batch_size) +
           ", \"lr\": " + json_number(row.lr) + ", \"repeats\": " + std::to_string(row.repeats) +
           ", \"seconds_per_epoch\": " + json_number(row.seconds_per_epoch) +
           ", \"seconds_per_epoch_min\": " + json_number(row.seconds_min) +
           ", \"seconds_per_epoch_max\": " + json_number(row.seconds_max) +
           ", \"speedup\": " + json_number(row.speedup) +
           ", \"speedup_min\": " + json_number(row.speedup_min) +
           ", \"speedup_max\": " + json_number(row.speedup_max) + ", \"verdict\": " +
           (has_verdict ? json_string(speedup_verdict_text(row.verdict())) : std::string("null")) +
           ", \"baseline_devices\": " + std::to_string(row.baseline_devices) +
           ", \"efficiency\": " + json_number(row.efficiency) +
           ", \"final_test_acc\": " + json_number(row.final_test_acc) +
           ", \"busy\": " + (row.busy ? "true" : "false") + "}";
}

[[noreturn]] void invalid(const std::string& reason) {
    throw Error("not a valid study: " + reason);
}

}  // namespace

Study study_of(const StudyPlan& plan, std::vector<RunRecord> runs) {
    return {.kind = plan.kind,
            .grid = plan.kind == StudyKind::sweep ? sweep_grid_text(plan.grid) : "",
            .repeats = plan.repeats,
            .runs = std::move(runs)};
}

std::string study_json(const Study& study) {
    std::string table = "[";
    const std::vector<StudyRow> rows = study.table();
    for (std::size_t i = 0; i < rows.size(); ++i)
        table += (i ? ",\n    " : "\n    ") + row_json(rows[i]);
    table += rows.empty() ? "]" : "\n  ]";
    std::string runs = "[";
    for (std::size_t i = 0; i < study.runs.size(); ++i)
        runs += (i ? ",\n" : "\n") + to_json(study.runs[i]);
    runs += "]";
    return "{\n  \"format\": " + json_string(kFormat) + ",\n  \"version\": " +
           std::to_string(kVersion) + ",\n  \"kind\": " + json_string(study_kind_name(study.kind)) +
           ",\n  \"grid\": " + json_string(study.grid) +
           ",\n  \"repeats\": " + std::to_string(study.repeats) + ",\n  \"table\": " + table +
           ",\n  \"runs\": " + runs + "\n}\n";
}

Study gather_studies(const std::vector<Study>& parts) {
    if (parts.empty()) throw Error("no study to gather: name the files the job array's tasks wrote");
    Study gathered = parts.front();
    gathered.runs.clear();
    // "sweep devices=1,2 --repeat 2"
    const auto described = [](const Study& study) {
        return std::string(study_kind_name(study.kind)) + " " + study.grid + " --repeat " +
               std::to_string(study.repeats);
    };
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const Study& part = parts[i];
        if (part.kind != StudyKind::sweep || part.grid != gathered.grid || part.repeats != gathered.repeats)
            throw Error("study " + std::to_string(i + 1) + " of " + std::to_string(parts.size()) +
                        " is not of the same sweep (" + described(part) + "; the first: " +
                        described(gathered) + "): gather one sweep's tasks at a time");
        gathered.runs.insert(gathered.runs.end(), part.runs.begin(), part.runs.end());
    }
    // Each task planned its point in a process of its own, so each task's
    // run has a comparison group of its own: give a (batch size, lr) cell's
    // runs one group again, as one process's sweep_plan does, so that the
    // workbench pairs the cell's N-device runs with its baseline run. The
    // cell's first run's group is kept: gathering again changes nothing.
    std::map<std::pair<int, float>, std::string> cell_groups;
    for (RunRecord& run : gathered.runs) {
        const auto [cell, first] = cell_groups.try_emplace({run.config.batch_size, run.config.lr},
                                                           run.comparison_group);
        if (first && cell->second.empty()) cell->second = new_comparison_group();
        run.comparison_group = cell->second;
    }
    return gathered;
}

void write_study(const std::filesystem::path& file, const Study& study) {
    AtomicFile out(file);
    out.write(study_json(study));
    out.commit();
}

Study study_from_json(std::string_view json) {
    JsonReader reader(json, "not a valid study: a syntax error");
    reader.skip_whitespace();
    reader.skip_value();  // the whole text's syntax first
    reader.skip_whitespace();
    if (!reader.at_end()) reader.syntax_error("text after the study");
    reader.seek(0);
    reader.skip_whitespace();
    if (reader.peek_type() != JsonType::object) invalid("it is not a JSON object");
    std::map<std::string, std::size_t> members;
    reader.parse_object([&](std::string key, std::size_t) {
        reader.skip_whitespace();
        members[std::move(key)] = reader.position();  // where its value starts
        reader.skip_value();
    });
    const auto seek = [&](const char* key, JsonType type, const char* what) {
        const auto member = members.find(key);
        if (member == members.end()) invalid(std::string("\"") + key + "\" is missing");
        reader.seek(member->second);
        if (reader.peek_type() != type) invalid(std::string("\"") + key + "\" is not " + what);
    };
    seek("format", JsonType::string, "a string");
    if (reader.parse_string() != kFormat)
        invalid("\"format\" is not \"" + std::string(kFormat) + "\" (a run record is opened with --import)");
    seek("version", JsonType::number, "a number");
    if (const JsonNumber version = reader.parse_number(); version.whole != kVersion)
        invalid("version " + json_number(version.value) + " is not 1: a newer dp-train wrote it; "
                "open it with that version");
    Study study;
    seek("kind", JsonType::string, "a string");
    const std::string kind = reader.parse_string();
    const auto parsed = parse_study_kind(kind);
    if (!parsed) invalid("unknown kind \"" + kind + "\" (known: single run, comparison, sweep)");
    study.kind = *parsed;
    seek("grid", JsonType::string, "a string");
    study.grid = reader.parse_string();
    seek("repeats", JsonType::number, "a number");
    const JsonNumber repeats = reader.parse_number();
    if (!repeats.whole || *repeats.whole < 1 || *repeats.whole > 100)
        invalid("\"repeats\" is not a whole number from 1 to 100");
    study.repeats = int(*repeats.whole);
    seek("runs", JsonType::array, "an array");
    reader.parse_array([&](std::size_t index) {
        reader.skip_whitespace();
        const std::size_t start = reader.position();
        reader.skip_value();
        try {
            study.runs.push_back(run_record_from_json(json.substr(start, reader.position() - start)));
        } catch (const Error& error) {
            invalid("runs[" + std::to_string(index) + "]: " + error.what());
        }
    });
    return study;
}

Study read_study(const std::filesystem::path& file) {
    try {
        return study_from_json(read_bounded_file(file, kMaxStudyBytes));
    } catch (const Error& error) {
        const std::string message = error.what();
        // read_bounded_file names the file itself.
        if (message.find(file.string()) != std::string::npos) throw;
        throw Error(file.string() + ": " + message);
    }
}

bool is_study_file(const std::filesystem::path& file) {
    try {
        const std::string text = read_bounded_file(file, kMaxStudyBytes);
        JsonReader reader(text, "not JSON");
        reader.skip_whitespace();
        if (reader.peek_type() != JsonType::object) return false;
        bool study = false;
        reader.parse_object([&](std::string key, std::size_t) {
            reader.skip_whitespace();
            if (key == "format" && reader.peek_type() == JsonType::string)
                study = reader.parse_string() == kFormat;
            else
                reader.skip_value();
        });
        return study;
    } catch (const std::exception&) {
        return false;
    }
}

std::filesystem::path new_study_path() {
    const std::filesystem::path folder = workbench_data_folder() / "studies";
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error)
        throw Error("cannot create " + folder.string() + " for the study (" + error.message() +
                    "): name a file with --study-out FILE");
    std::string stamp = start_run_record(TrainConfig{}, "").started_at;
    std::replace(stamp.begin(), stamp.end(), ':', '-');
    return folder / ("study-" + stamp + "-" + std::to_string(::getpid()) + ".json");
}

}  // namespace dp
