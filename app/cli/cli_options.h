#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "config/train_config.h"
#include "study/sweep_grid.h"

namespace dp {

// What a dp-train command line asks for.
struct CliCommand {
    enum class Action { train, compare, sweep, gather_study, export_study, list_devices, help, version };
    Action action = Action::train;
    TrainConfig config;
    bool verbose = false;            // per-device step timing after each epoch
    std::vector<int> compare_counts;  // --compare 1,2
    bool scale_lr = false;            // --scale-lr with --compare
    int repeats = 1;                  // --repeat R with --compare or --sweep: each run R times
    std::string report_path;          // --report FILE with --compare: the comparison as JSON
    SweepGrid sweep_grid;             // --sweep devices=1,2 batch-size=64,256
    std::optional<std::size_t> sweep_index;  // --sweep-index I: only the grid's point I
    std::string study_path;           // --study-out FILE with --sweep; empty: new_study_path()
    std::string sweep_csv_path;       // --sweep-csv FILE with --sweep: the table as CSV
    std::string export_study_path;    // --export-study FILE: print a study file's table
    std::vector<std::string> gathered_studies;  // --gather-study FILE...: a job array's parts
    bool csv = false;                 // --csv with --export-study: as CSV
    bool predict = false;             // --predict: the what-if table after the run(s)
    bool distributed = false;  // one rank of an mpirun job (--distributed)
    bool history = true;       // keep the run in the workbench's history (--no-history: not)
};

// Parses the arguments after the program name. Throws dp::Error with a
// one-line message for an unknown flag, a missing or malformed value, or an
// impossible setting; dp-train prints it and exits with code 2.
CliCommand parse_cli(const std::vector<std::string>& args);

// One option as --help and the man page list it.
struct HelpEntry {
    std::string flag;        // "--batch-size", or "-h, --help"
    const char* value_name;  // "N"; nullptr for a switch
    std::string text;        // "\n" starts another line; with the default where there is one
};
struct HelpSectionText {
    std::string title;  // "Training"
    std::vector<HelpEntry> entries;
};
// Every option, by section, from the settings schema and dp-train's own options.
std::vector<HelpSectionText> help_sections();

// The --help text, listing the models.
std::string cli_help();

}  // namespace dp
