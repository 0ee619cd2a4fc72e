#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/setting_ref.h"
#include "config/train_config.h"

namespace dp {

// Where --help lists a field.
enum class HelpSection { training, data, records, parallelism };

// One setting of TrainConfig and everything the front ends and formats need
// to know about it: the table below is the one schema, as Caffe's
// caffe.proto is, which dp-train's parser and --help, the run record's JSON,
// the history's columns, the workbench's remembered settings, the settings
// every MPI rank must share and the cluster command all iterate. Adding a
// setting means a TrainConfig member, a row here and the code that uses it.
struct ConfigField {
    using Member = std::variant<int TrainConfig::*, std::uint64_t TrainConfig::*,
                                float TrainConfig::*, double TrainConfig::*, bool TrainConfig::*,
                                std::string TrainConfig::*, std::vector<std::string> TrainConfig::*,
                                AllReduceStrategy TrainConfig::*>;
    enum Scope : unsigned {
        shared = 1,      // every rank of a multi-process run must agree (shared_settings)
        remembered = 2,  // the workbench restores it at launch
        required = 4,    // run records have always held it: a record without it is refused
        command = 8,     // the cluster command passes it on to every rank
        essential = 16,  // commands spell it out even at its default (model, batch, lr, ...)
        // The workbench's settings panel edits it in its Advanced box, with an
        // editor made from the field's kind (ui/setting_editor.h): a new
        // setting with this scope needs no ui/ code.
        advanced = 32,
        // A list whose flag may be given again: each use adds to the list
        // (--slow-device cpu:1=1.5 --slow-device cpu:2=2).
        repeatable = 64,
    };

    const char* name;   // "batch_size": JSON key, history column, settings key
    const char* label;  // "batch size": how messages and the workbench name it
    // "--batch-size". A boolean's flag sets it ("--sync-bn"), or clears it
    // when it starts with "--no-" ("--no-shuffle"); nullptr: no flag.
    const char* flag;
    const char* value_name;  // "N" in --help
    const char* help;        // --help's text; "\n" starts another line
    HelpSection section;
    Member member;
    unsigned scope = 0;
    // Numbers: the least value (exclusive: more than it); validate() holds to it.
    double min = -std::numeric_limits<double>::infinity();
    bool min_exclusive = false;
};

// A choice among names (the all-reduce strategy) is text: formats and
// front ends read and write its name (config/all_reduce_strategy.h).
enum class FieldKind { integer, uint64, real32, real64, boolean, text, text_list };

const std::vector<ConfigField>& config_fields();
// The field named `name`; throws std::logic_error for an unknown name.
const ConfigField& config_field(std::string_view name);

FieldKind field_kind(const ConfigField& field);

// The value as text: numbers in their shortest exact form ("0.2"), booleans
// "true"/"false", lists comma-separated.
std::string field_text(const ConfigField& field, const TrainConfig& config);

// Sets the field from text as field_text writes it (numbers in any decimal
// form, booleans also 1/0; a choice only from one of its names). Throws dp::Error with a message that does not
// name the field ("'12x' is not a valid number (a whole number)"): the caller names it.
void set_field_text(const ConfigField& field, TrainConfig& config, std::string_view text);

// A number field's value; nothing for booleans, text and lists.
std::optional<double> field_number(const ConfigField& field, const TrainConfig& config);

// How a number field's value breaks its range, the rule validate() holds
// to: the one place it is decided, each front end wording it its own way.
enum class RangeBreak {
    none,           // within range, or not a number field
    not_finite,     // a real field holds NaN or an infinity
    below_minimum,  // below ConfigField::min (or at it, when min_exclusive)
};
RangeBreak range_break(const ConfigField& field, const TrainConfig& config);

// Whether the field holds its default value in `config`.
bool has_default_value(const ConfigField& field, const TrainConfig& config);

// `message` with every setting(name) marker (core/setting_ref.h) replaced
// by name_of(field); other text stays as it is.
std::string render_settings(std::string message, std::string (*name_of)(const ConfigField&));
// dp-train's rendering: the flag, or the label for a field without one.
std::string flag_or_label(const ConfigField& field);

}  // namespace dp
