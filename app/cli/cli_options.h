#pragma once

#include <string>
#include <vector>

#include "config/train_config.h"

namespace dp {

// What a dp-train command line asks for.
struct CliCommand {
    enum class Action { train, compare, list_devices, help, version };
    Action action = Action::train;
    TrainConfig config;
    bool verbose = false;            // per-device step timing after each epoch
    std::vector<int> compare_counts;  // --compare 1,2
    bool scale_lr = false;            // --scale-lr with --compare
    int repeats = 1;                  // --repeat R with --compare: the comparison R times
    std::string report_path;          // --report FILE with --compare: the comparison as JSON
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
