#include "cli/cli_options.h"

#include <charconv>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/format.h"
#include "devices/device.h"
#include "config/run_outputs.h"
#include "models/model_registry.h"
#include "config/config_fields.h"

namespace dp {
namespace {

template <typename Number>
Number parse_number(const std::string& flag, const std::string& text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
        throw Error(flag + ": '" + text + "' is not a valid number");
    return value;
}

// The field a settings flag sets ("--no-shuffle": shuffle), if any.
const ConfigField* field_of_flag(const std::string& flag) {
    for (const ConfigField& field : config_fields())
        if (field.flag && flag == field.flag) return &field;
    return nullptr;
}

// dp-train's own options, beside the settings of config_fields().
struct CliOption {
    const char* flag;
    const char* value_name;  // nullptr: a switch
    const char* help;
    std::function<void(CliCommand&, const std::string& flag, const std::string& value)> apply;
    // Takes the words after its value too, up to the next option
    // (--sweep devices=1,2 batch-size=64,256): apply is called with each.
    bool takes_more_words = false;
};

const std::vector<CliOption>& cli_options() {
    static const std::vector<CliOption> options{
        {"--no-history", nullptr,
         "do not keep the run in the workbench's history (runs.sqlite in\n"
         "DP_WORKBENCH_DATA_DIR or the user's data folder; dp-workbench shows it)",
         [](CliCommand& c, auto&, auto&) { c.history = false; }},
        {"--list-devices", nullptr, "print this machine's devices and exit",
         [](CliCommand& c, auto&, auto&) { c.action = CliCommand::Action::list_devices; }},
        {"--compare", "LIST",
         "run on each device count in LIST (e.g. 1,2) and print speedup, scaling\n"
         "efficiency and each run's parameter drift from the first",
         [](CliCommand& c, auto& f, auto& v) {
             c.action = CliCommand::Action::compare;
             c.compare_counts.clear();
             std::size_t start = 0;
             while (start <= v.size()) {
                 const auto comma = std::min(v.find(',', start), v.size());
                 c.compare_counts.push_back(parse_number<int>(f, v.substr(start, comma - start)));
                 start = comma + 1;
             }
             // The first run is every later one's baseline: speedups are over it.
             if (std::adjacent_find(c.compare_counts.begin(), c.compare_counts.end(),
                                    std::greater_equal<>()) != c.compare_counts.end())
                 throw Error(f + " lists device counts from the baseline up, each once "
                                 "(e.g. 1,2,4; got " + v + ")");
         }},
        {"--sweep", "KEY=LIST...",
         "run every combination of the settings listed (keys: devices, batch-size,\n"
         "lr; e.g. devices=1,2 batch-size=64,256), then print one table (s/epoch,\n"
         "speedup over the fewest devices, efficiency, test accuracy) and keep\n"
         "every run's record in one study file",
         [](CliCommand& c, auto&, auto& v) {
             c.action = CliCommand::Action::sweep;
             add_sweep_axis(c.sweep_grid, v);
         },
         true},
        {"--sweep-index", "I",
         "with --sweep: run only the grid's point I (from 0; lr outermost, then\n"
         "batch size, then devices): one task of a Slurm job array",
         [](CliCommand& c, auto& f, auto& v) { c.sweep_index = parse_number<std::size_t>(f, v); }},
        {"--study-out", "FILE",
         "with --sweep: write the study there (default: studies/ in the\n"
         "workbench's data folder; the path is printed)",
         [](CliCommand& c, auto&, auto& v) { c.study_path = v; }},
        {"--sweep-csv", "FILE", "with --sweep: write the table as CSV",
         [](CliCommand& c, auto&, auto& v) { c.sweep_csv_path = v; }},
        {"--gather-study", "FILE...",
         "gather the study files of a job array's tasks (--sweep-index) into the\n"
         "one --study-out names, and print its table",
         [](CliCommand& c, auto&, auto& v) {
             c.action = CliCommand::Action::gather_study;
             c.gathered_studies.push_back(v);
         },
         true},
        {"--export-study", "FILE", "print a study file's table (with --csv: as CSV) and exit",
         [](CliCommand& c, auto&, auto& v) {
             c.action = CliCommand::Action::export_study;
             c.export_study_path = v;
         }},
        {"--csv", nullptr, "with --export-study: print the table as CSV",
         [](CliCommand& c, auto&, auto&) { c.csv = true; }},
        {"--repeat", "R",
         "with --compare: run the comparison R times, device counts alternating\n"
         "(1, N, 1, N, ...), and print each count's median speedup and range;\n"
         "with --sweep: run the grid R times",
         [](CliCommand& c, auto& f, auto& v) {
             c.repeats = parse_number<int>(f, v);
             if (c.repeats < 1 || c.repeats > 100)
                 throw Error(f + " must be 1 to 100 (got " + v + ")");
         }},
        {"--scale-lr", nullptr, "with --compare: scale batch and lr with the device count",
         [](CliCommand& c, auto&, auto&) { c.scale_lr = true; }},
        {"--report", "FILE",
         "with --compare: write the speedup table and each N-device run's gap to\n"
         "the ideal speedup, split into its parts, as one JSON object",
         [](CliCommand& c, auto&, auto& v) { c.report_path = v; }},
        {"--predict", nullptr,
         "after the run (or --compare), predict sec/epoch and speedup on 1-64\n"
         "devices, strong and weak scaling, naive and ring, over this machine's\n"
         "threads (probed, < 1 s) and PCIe, NVLink, 10/100 GbE; measured runs beside",
         [](CliCommand& c, auto&, auto&) { c.predict = true; }},
        {"--verbose", nullptr, "print each device's step time breakdown per epoch",
         [](CliCommand& c, auto&, auto&) { c.verbose = true; }},
        {"--profile-ops", "N",
         "time every backend call of N steady steps (from the second) and print\n"
         "each device's ms per step by op family and by layer, with its share",
         [](CliCommand& c, auto& f, auto& v) {
             c.config.profile_ops = parse_number<int>(f, v);
             if (c.config.profile_ops < 1 || c.config.profile_ops > 1000)
                 throw Error(f + " must be 1 to 1000 steps (got " + v + ")");
         }},
        {"--distributed", nullptr,
         "be one rank of an MPI job (mpirun -np N dp-train ... --distributed): one\n"
         "device per rank, the global batch split over every rank, rank 0 prints\nand saves",
         [](CliCommand& c, auto&, auto&) { c.distributed = true; }},
    };
    return options;
}

const CliOption* cli_option(const std::string& flag) {
    for (const CliOption& option : cli_options())
        if (flag == option.flag) return &option;
    return nullptr;
}

// "  --batch-size N      global batch size ... (default 256)", continuation
// lines indented under the text; a flag too long for the column has the
// text start on the next line.
std::string help_entry(const std::string& flag, const char* value_name, std::string text) {
    constexpr std::size_t text_column = 22;
    std::string head = "  " + flag + (value_name ? std::string(" ") + value_name : "");
    std::string out;
    if (head.size() >= text_column) {
        out = head + "\n";
        head.clear();
    }
    head.resize(text_column, ' ');
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto newline = std::min(text.find('\n', start), text.size());
        out += (start == 0 ? head : std::string(text_column, ' ')) +
               text.substr(start, newline - start) + "\n";
        start = newline + 1;
    }
    return out;
}

// A field's help text with its default, as --help and the man page show it.
std::string field_help_text(const ConfigField& field) {
    std::string text = field.help;
    const bool shows_default = field.value_name && field_kind(field) != FieldKind::text_list &&
                               !field_text(field, TrainConfig{}).empty();
    if (shows_default) text += " (default " + field_text(field, TrainConfig{}) + ")";
    return text;
}

// --help and --version answer before any other option is looked at.
std::optional<CliCommand::Action> answered_at_once(const std::string& flag) {
    if (flag == "--help" || flag == "-h") return CliCommand::Action::help;
    if (flag == "--version") return CliCommand::Action::version;
    return std::nullopt;
}

// --sweep's options without it, and what it does not combine with.
void check_sweep_options(const CliCommand& command) {
    const bool sweep = command.action == CliCommand::Action::sweep;
    if (command.action == CliCommand::Action::gather_study && command.study_path.empty())
        throw Error("--gather-study writes one study: name it with --study-out FILE");
    const bool sweep_or_gather = sweep || command.action == CliCommand::Action::gather_study;
    const std::pair<bool, const char*> sweep_only[] = {
        {command.sweep_index.has_value(), "--sweep-index"},
        {!command.study_path.empty() && !sweep_or_gather, "--study-out"},
        {!command.sweep_csv_path.empty(), "--sweep-csv"}};
    for (const auto& [given, flag] : sweep_only)
        if (given && !sweep)
            throw Error(std::string(flag) + " goes with a sweep: add --sweep KEY=LIST (e.g. devices=1,2)");
    if (command.csv && command.action != CliCommand::Action::export_study)
        throw Error("--csv goes with --export-study FILE");
    const SweepGrid& grid = command.sweep_grid;
    const bool has_grid = !grid.device_counts.empty() || !grid.batch_sizes.empty() || !grid.lrs.empty();
    if (has_grid && !command.compare_counts.empty())
        throw Error("--sweep and --compare both plan the runs: give one (--sweep devices=1,2 "
                    "compares device counts too)");
    if (command.action == CliCommand::Action::gather_study)
        check_run_outputs(command.config, {{command.study_path, "--study-out"}});
    if (!sweep) return;
    if (!command.config.record_path.empty())
        throw Error("--record keeps one run; --sweep makes several (their records are in the study file)");
    if (command.predict)
        throw Error("--predict follows one run or a comparison; run it without --sweep");
    if (command.config.epochs < 1)
        throw Error("--sweep measures training speed: set --epochs to 1 or more");
    if (command.sweep_index) {
        std::size_t points = 1;
        for (const std::size_t axis : {command.sweep_grid.device_counts.size(),
                                       command.sweep_grid.batch_sizes.size(),
                                       command.sweep_grid.lrs.size()})
            points *= std::max<std::size_t>(axis, 1);
        if (*command.sweep_index >= points)
            throw Error("--sweep-index " + std::to_string(*command.sweep_index) +
                        " is past the grid's last point: it has " + std::to_string(points) +
                        " (0 to " + std::to_string(points - 1) + ")");
    }
    std::vector<NamedPath> outputs;
    if (!command.study_path.empty()) outputs.push_back({command.study_path, "--study-out"});
    if (!command.sweep_csv_path.empty()) outputs.push_back({command.sweep_csv_path, "--sweep-csv"});
    // Checked before any run, as --record and --save are.
    check_run_outputs(command.config, outputs);
}

// The options that only make sense together (--repeat with --compare, ...),
// then the settings themselves, as validate() holds them.
void check_option_combinations(const CliCommand& command) {
    if (command.scale_lr && command.action != CliCommand::Action::compare)
        throw Error("--scale-lr only applies to --compare");
    check_sweep_options(command);
    if (command.repeats > 1 && command.action != CliCommand::Action::compare &&
        command.action != CliCommand::Action::sweep)
        throw Error("--repeat repeats a comparison or a sweep: add --compare 1,N or --sweep KEY=LIST");
    if (command.predict && command.config.epochs < 1)
        throw Error("--predict needs a run to predict from: set --epochs to 1 or more");
    if (!command.config.record_path.empty() && command.action == CliCommand::Action::compare)
        throw Error("--record keeps one run; --compare makes several");
    if (command.action == CliCommand::Action::compare && command.config.epochs < 1)
        throw Error("--compare measures training speed: set --epochs to 1 or more");
    if (!command.report_path.empty()) {
        if (command.action != CliCommand::Action::compare)
            throw Error("--report writes a comparison: add --compare 1,N");
        // Checked before any run, as --record and --save are.
        check_run_outputs(command.config, {{command.report_path, "--report"}});
    }
    if (command.distributed) {
#ifndef DP_HAVE_MPI
        throw Error("--distributed needs MPI: this dp-train was built without it "
                    "(install libopenmpi-dev and configure with -DDP_MPI=ON)");
#endif
        if (command.action == CliCommand::Action::compare || command.action == CliCommand::Action::sweep)
            throw Error("--compare and --sweep run in one process; they do not combine with "
                        "--distributed (one task of a Slurm job array runs one point: --sweep-index I)");
        if (command.predict)
            throw Error("--predict models one process's devices; run it without --distributed");
        if (!command.config.devices.empty())
            throw Error("--devices does not combine with --distributed: each rank takes the "
                        "device of its local rank");
        if (!command.config.slow_devices.empty())
            throw Error("--slow-device slows a device of a one-process run; it does not combine "
                        "with --distributed");
        // Its ranks would each refuse it once MPI started, a failed run each.
        if (command.config.allreduce == AllReduceStrategy::dataparallel)
            throw Error("--allreduce dataparallel gathers every device's outputs in one process, as "
                        "nn.DataParallel does; it does not combine with --distributed (the ranks "
                        "all-reduce through MPI): leave --allreduce out");
        // Each rank's device is chosen once MPI says which rank it is; any
        // one device stands in for it here.
        TrainConfig one_device = command.config;
        one_device.devices = {available_devices().front().id};
        validate(one_device);
    } else {
        validate(command.config);
    }
}

CliCommand parse_arguments(const std::vector<std::string>& args) {
    CliCommand command;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i];
        std::string value;
        bool has_inline_value = false;
        if (const auto eq = flag.find('='); flag.starts_with("--") && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag.resize(eq);
            has_inline_value = true;
        }
        if (const auto action = answered_at_once(flag)) {
            command.action = *action;
            return command;
        }
        const ConfigField* field = field_of_flag(flag);
        const CliOption* option = field ? nullptr : cli_option(flag);
        if (!field && !option) throw Error("unknown option '" + flag + "' (see dp-train --help)");
        const bool takes_value = field ? field_kind(*field) != FieldKind::boolean : bool(option->value_name);
        // "--sync-bn=false" would read as --sync-bn: a switch is its own value.
        if (!takes_value && has_inline_value)
            throw Error(flag + " is a switch and takes no value (got '" + args[i] + "'): write " +
                        flag + " alone, or leave it out");
        if (takes_value && !has_inline_value) {
            if (i + 1 == args.size()) throw Error(flag + " needs a value (see dp-train --help)");
            value = args[++i];
        }
        if (!field) {
            option->apply(command, flag, value);
            // The words after it up to the next option are its values too.
            while (option->takes_more_words && i + 1 < args.size() && !args[i + 1].starts_with("-"))
                option->apply(command, flag, args[++i]);
            if (command.action == CliCommand::Action::list_devices) {
                available_devices();  // a bad DP_CPU_DEVICES is a usage error here too
                return command;
            }
        } else if (!takes_value) {
            set_field_text(*field, command.config, flag.starts_with("--no-") ? "false" : "true");
        } else {
            // A repeatable list's flag adds its items to those given before.
            if ((field->scope & ConfigField::repeatable) && !field_text(*field, command.config).empty())
                value = field_text(*field, command.config) + "," + value;
            try {
                set_field_text(*field, command.config, value);
            } catch (const Error& error) {
                throw Error(flag + ": " + error.what());
            }
        }
    }
    check_option_combinations(command);
    return command;
}

}  // namespace

CliCommand parse_cli(const std::vector<std::string>& args) {
    try {
        return parse_arguments(args);
    } catch (const Error& error) {
        // The engine names settings neutrally; dp-train names them by their flags.
        throw Error(render_settings(error.what(), flag_or_label));
    }
}

std::vector<HelpSectionText> help_sections() {
    const std::pair<HelpSection, const char*> sections[] = {
        {HelpSection::training, "Training"},
        {HelpSection::data, "Data"},
        {HelpSection::records, "Checkpoints and records"},
        {HelpSection::parallelism, "Data parallelism"},
    };
    std::vector<HelpSectionText> out;
    for (const auto& [section, title] : sections) {
        HelpSectionText& text = out.emplace_back(HelpSectionText{title, {}});
        for (const ConfigField& field : config_fields())
            if (field.flag && field.section == section)
                text.entries.push_back({field.flag, field.value_name, field_help_text(field)});
        if (section == HelpSection::records)
            text.entries.push_back({"--no-history", nullptr, cli_option("--no-history")->help});
    }
    // The other options close the last section, as --help has always listed them.
    auto& last = out.back().entries;
    for (const CliOption& option : cli_options())
        if (std::string_view(option.flag) != "--no-history")
            last.push_back({option.flag, option.value_name, option.help});
    last.push_back({"--version", nullptr, "print the version, the git commit and the backends built"});
    last.push_back({"-h, --help", nullptr, "show this help"});
    return out;
}

std::string cli_help() {
    std::string text =
        "Usage: dp-train [options]\n"
        "Trains a model data-parallel and prints test accuracy and sec/epoch per epoch.\n";
    for (const HelpSectionText& section : help_sections()) {
        text += "\n" + section.title + ":\n";
        for (const HelpEntry& entry : section.entries)
            text += help_entry(entry.flag, entry.value_name, entry.text);
    }
    text += "\nModels:\n";
    for (const auto& info : model_registry())
        text += format("  %-16s %10zu params  %s\n", info.name.c_str(), info.parameters,
                       info.description.c_str());
    return text;
}

}  // namespace dp
