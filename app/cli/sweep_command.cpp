#include "cli/sweep_command.h"

#include <cstdio>
#include <filesystem>

#include "cli/study_console.h"
#include "config/config_fields.h"
#include "core/error.h"
#include "core/format.h"
#include "io/atomic_file.h"
#include "study/study_file.h"

namespace dp {
namespace {

void write_text_file(const std::filesystem::path& file, const std::string& text) {
    AtomicFile out(file);
    out.write(text);
    out.commit();
}

}  // namespace

int sweep(const CliCommand& command) {
    // Resolved once: a point of N devices runs on the first N of them.
    const std::vector<DeviceInfo> devices = select_devices(command.config.devices);
    StudyPlan plan;
    std::filesystem::path study_path = command.study_path;
    try {
        plan = sweep_plan(command.config, devices, command.sweep_grid, command.repeats,
                          command.sweep_index);
        // Where it goes is known before the first run trains.
        if (study_path.empty()) study_path = new_study_path();
    } catch (const Error& error) {
        std::fprintf(stderr, "dp-train: %s\n", render_settings(error.what(), flag_or_label).c_str());
        return 2;  // a grid that cannot run here: a bad command line
    }
    StudyConsole console(command);
    const StudyResult result = cli_study_runner(command).run(plan, console);
    std::printf("\nsweep %s, %s:\n%s", sweep_grid_text(plan.grid).c_str(),
                command.repeats > 1
                    ? format("median and range of %d repeats", command.repeats).c_str()
                    : "speedup range from the steady epochs",
                format_study_table(result.table).c_str());
    console.print_busy_note();
    // The runs that finished are kept even when a later one failed or was stopped.
    write_study(study_path, study_of(plan, result.records()));
    std::printf("study: %s\n", study_path.c_str());
    if (!command.sweep_csv_path.empty()) {
        write_text_file(command.sweep_csv_path, study_table_csv(result.table));
        std::printf("table as CSV: %s\n", command.sweep_csv_path.c_str());
    }
    return study_exit_code(result);
}

int gather_study(const CliCommand& command) {
    std::vector<Study> parts;
    for (const std::string& part : command.gathered_studies) parts.push_back(read_study(part));
    const Study study = gather_studies(parts);
    write_study(command.study_path, study);
    std::printf("sweep %s, %zu runs:\n%s", study.grid.c_str(), study.runs.size(),
                format_study_table(study.table()).c_str());
    std::printf("study: %s\n", command.study_path.c_str());
    return 0;
}

int export_study(const CliCommand& command) {
    const Study study = read_study(command.export_study_path);
    const std::vector<StudyRow> rows = study.table();
    std::fputs((command.csv ? study_table_csv(rows) : format_study_table(rows)).c_str(), stdout);
    return 0;
}

}  // namespace dp
