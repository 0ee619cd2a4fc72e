#include "record/run_record_json.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "config/config_fields.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/bounded_file.h"
#include "io/json.h"
#include "record/run_record_rules.h"
#include "record/step_timing_fields.h"

namespace dp {
namespace {

constexpr std::string_view kFormat = "dp-workbench run record";
constexpr int kVersion = 1;

// ---- Writing ----

std::string quoted(const std::string& text) { return json_string(text); }

std::string string_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + quoted(items[i]);
    return out + "]";
}

// Every setting under its field name (config/config_fields.h), typed as JSON.
std::string config_json(const TrainConfig& c) {
    std::string out;
    for (const ConfigField& field : config_fields()) {
        std::string value;
        switch (field_kind(field)) {
        case FieldKind::text: value = quoted(field_text(field, c)); break;
        case FieldKind::text_list:
            value = string_list(c.*std::get<std::vector<std::string> TrainConfig::*>(field.member));
            break;
        case FieldKind::real32:
        case FieldKind::real64: {
            // Shortest exact text; JSON has no NaN. The value is read from the
            // setting, not from its text: std::stod follows the process's locale.
            value = std::isfinite(*field_number(field, c)) ? field_text(field, c) : "null";
            break;
        }
        default: value = field_text(field, c);  // whole numbers, true / false
        }
        out += (out.empty() ? "{" : ", ") + quoted(field.name) + ": " + value;
    }
    return out + "}";
}

std::string number_list(const std::vector<double>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + json_number(values[i]);
    return out + "]";
}

std::string epoch_json(const EpochMetrics& m) {
    // A drift or test loss that was not measured (NaN) is null.
    return "{\"epoch\": " + std::to_string(m.epoch) + ", \"train_loss\": " + json_number(m.train_loss) +
           ", \"train_acc\": " + json_number(m.train_acc) + ", \"test_loss\": " +
           json_number(m.test_loss) + ", \"test_acc\": " + json_number(m.test_acc) +
           ", \"seconds\": " + json_number(m.seconds) + ", \"parameter_drift\": " +
           json_number(m.parameter_drift) + ", \"device_cpu\": " + number_list(m.device_cpu) + "}";
}

// ---- Reading ----

// Syntax errors: "not a run record: not JSON at byte 12: expected ',' or '}'".
constexpr std::string_view kNotJson = "not a run record: not JSON";

[[noreturn]] void fail(const std::string& problem) {
    throw Error("not a valid run record: " + problem);
}

// One JSON object and where it sits in the record ("config", "epochs[2]"),
// so that a missing or mistyped field is named by its full path. The text
// has passed JsonReader::skip_value already: what is left to refuse is a
// missing member or one of the wrong type, in the order the reader asks.
class FieldReader {
public:
    // Indexes the members of the object at `position`: where each value
    // starts. A key given twice keeps its last value.
    FieldReader(std::string_view text, std::size_t position, std::string path)
        : text_(text), path_(std::move(path)) {
        JsonReader reader = cursor(position);
        reader.parse_object([&](std::string key, std::size_t) {
            reader.skip_whitespace();
            members_[std::move(key)] = reader.position();
            reader.skip_value();
        });
    }

    bool has(const std::string& key) const { return members_.contains(key); }

    // A cursor at the member's value.
    JsonReader value(const std::string& key) const {
        const auto member = members_.find(key);
        if (member == members_.end()) fail(name(key) + " is missing");
        return cursor(member->second);
    }

    JsonType type(const std::string& key) const { return value(key).peek_type(); }

    std::string string(const std::string& key) const {
        JsonReader field = value(key);
        if (field.peek_type() != JsonType::string) fail(name(key) + " is not a string");
        return field.parse_string();
    }

    bool boolean(const std::string& key) const {
        JsonReader field = value(key);
        if (field.peek_type() != JsonType::boolean) fail(name(key) + " is not true or false");
        return field.parse_boolean();
    }

    JsonNumber number_value(const std::string& key) const {
        JsonReader field = value(key);
        if (field.peek_type() != JsonType::number) fail(name(key) + " is not a number");
        return field.parse_number();
    }

    double number(const std::string& key) const { return number_value(key).value; }

    // Whole numbers only as an int64 holds them exactly (a uint64 seed above
    // 2^63 would not be, and is refused rather than changed), and in range.
    template <typename Integer>
    Integer integer(const std::string& key) const {
        const JsonNumber number = number_value(key);
        if (!number.whole || !std::in_range<Integer>(*number.whole))
            fail(name(key) + " is not a whole number in range");
        return Integer(*number.whole);
    }

    FieldReader object(const std::string& key) const {
        JsonReader field = value(key);
        if (field.peek_type() != JsonType::object) fail(name(key) + " is not an object");
        return {text_, field.position(), field_path(key)};
    }

    // A cursor at the array's '['.
    JsonReader array(const std::string& key) const {
        JsonReader field = value(key);
        if (field.peek_type() != JsonType::array) fail(name(key) + " is not an array");
        return field;
    }

    std::string field_path(const std::string& key) const {
        return path_.empty() ? key : path_ + '.' + key;
    }

    // How messages name a field: "config.lr".
    std::string name(const std::string& key) const { return '"' + field_path(key) + '"'; }

private:
    JsonReader cursor(std::size_t position) const {
        JsonReader reader(text_, std::string(kNotJson));
        reader.seek(position);
        return reader;
    }

    std::string_view text_;
    std::string path_;
    std::map<std::string, std::size_t, std::less<>> members_;
};

// Calls on_object(item) for each item of the array at the cursor, each of
// which must be an object: "epochs[2]" is not an object, else.
template <typename OnObject>
void read_objects(std::string_view text, JsonReader& array, const std::string& path, OnObject on_object) {
    array.parse_array([&](std::size_t index) {
        const std::string at = path + '[' + std::to_string(index) + ']';
        if (array.peek_type() != JsonType::object) fail('"' + at + "\" is not an object");
        on_object(FieldReader(text, array.position(), at));
        array.skip_value();
    });
}

// Every setting of the schema (config/config_fields.h); those records have
// always held are required, later ones default when absent.
TrainConfig read_config(const FieldReader& c) {
    TrainConfig config;
    for (const ConfigField& field : config_fields()) {
        const std::string key = field.name;
        if (!c.has(key) && !(field.scope & ConfigField::required)) continue;
        std::string text;
        switch (field_kind(field)) {
        case FieldKind::integer: text = std::to_string(c.integer<int>(key)); break;
        case FieldKind::uint64: text = std::to_string(c.integer<std::uint64_t>(key)); break;
        case FieldKind::real32:
        case FieldKind::real64: text = json_number(c.number(key)); break;
        case FieldKind::boolean: text = c.boolean(key) ? "true" : "false"; break;
        case FieldKind::text: text = c.string(key); break;
        case FieldKind::text_list: {
            JsonReader items = c.array(key);
            items.parse_array([&](std::size_t i) {
                if (items.peek_type() != JsonType::string)
                    fail('"' + c.field_path(key) + '[' + std::to_string(i) + "]\" is not a string");
                if (i > 0) text += ',';
                text += items.parse_string();
            });
            break;
        }
        }
        try {
            set_field_text(field, config, text);
        } catch (const Error& error) {
            fail(c.name(key) + ": " + error.what());
        }
    }
    return config;
}

// A field older records lack, or null when not measured: NaN then.
double optional_number(const FieldReader& e, const std::string& key) {
    if (!e.has(key) || e.type(key) == JsonType::null) return std::numeric_limits<double>::quiet_NaN();
    return e.number(key);
}

EpochMetrics read_epoch(const FieldReader& e) {
    EpochMetrics metrics;
    metrics.epoch = e.integer<int>("epoch");
    metrics.train_loss = e.number("train_loss");
    metrics.train_acc = e.number("train_acc");
    metrics.test_acc = e.number("test_acc");
    metrics.seconds = e.number("seconds");
    metrics.parameter_drift = optional_number(e, "parameter_drift");
    metrics.test_loss = optional_number(e, "test_loss");
    if (e.has("device_cpu")) {  // later still: without it, not measured
        JsonReader shares = e.array("device_cpu");
        shares.parse_array([&](std::size_t i) {
            if (shares.peek_type() != JsonType::number)
                fail('"' + e.field_path("device_cpu") + '[' + std::to_string(i) + "]\" is not a number");
            metrics.device_cpu.push_back(shares.parse_number().value);
        });
    }
    return metrics;
}

std::vector<DeviceStepTiming> read_step_totals(std::string_view text, JsonReader& array,
                                               const std::string& path) {
    std::vector<DeviceStepTiming> devices;
    read_objects(text, array, path, [&](const FieldReader& device) {
        DeviceStepTiming timing;
        for (const StepTimingField& field : step_timing_fields()) {
            const std::string key = field.name;
            if (field.optional && !device.has(key)) continue;  // 0, as the record was kept
            const double value = std::holds_alternative<int DeviceStepTiming::*>(field.member)
                                         ? double(device.integer<int>(key))
                                         : device.number(key);
            if (value < 0) fail(device.name(key) + " is negative");
            set_step_timing_value(field, timing, value);
        }
        devices.push_back(timing);
    });
    return devices;
}

// Checks that `text` is one JSON array or object and nothing else (Qt's
// reader, which this one replaced, took no other kind at the top).
void check_syntax(JsonReader& reader) {
    const JsonType type = reader.peek_type();
    if (type != JsonType::object && type != JsonType::array) reader.syntax_error("expected an object");
    reader.skip_value();
    reader.skip_whitespace();
    if (!reader.at_end()) reader.syntax_error("more after the JSON value");
}

// Why `bytes` cannot be JSON text, which is UTF-8: empty when they can.
// Windows tools save text as UTF-16 (a byte-order mark, or a zero byte in
// every other place), which a JSON parser would call an invalid value.
std::string encoding_problem(std::string_view bytes) {
    const bool utf16_mark = bytes.starts_with("\xff\xfe") || bytes.starts_with("\xfe\xff");
    if (utf16_mark || bytes.substr(0, 4).find('\0') != std::string_view::npos)
        return "the file is UTF-16 text, not UTF-8: save it as UTF-8 (as dp-train writes it)";
    if (!is_valid_utf8(bytes))
        return "the file is not UTF-8 text: save it as UTF-8 (as dp-train writes it)";
    return {};
}

// At most `units` UTF-16 code units of `text` (UTF-8), cut between
// characters: how much of a bad value a message quotes.
std::string utf16_prefix(const std::string& text, std::size_t units) {
    std::size_t end = 0, taken = 0;
    while (end < text.size()) {
        const auto lead = static_cast<unsigned char>(text[end]);
        const std::size_t bytes = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        const std::size_t width = bytes == 4 ? 2 : 1;
        if (taken + width > units) break;
        taken += width;
        end += bytes;
    }
    return text.substr(0, end);
}

}  // namespace

// Version 1: one object with the keys below; "config" holds TrainConfig's
// fields under their C++ names, "epochs" one object per completed epoch.
// "comparison_group", "deterministic" and "name" came later in version 1:
// readers take a record without them as a single, deterministic, unnamed run.
// "steps" and "step_totals" (each device's step phases summed over the run,
// record/step_timing_fields.h) came later still: a record without them has no
// step timings (steps 0), so no speedup-gap breakdown. "other_cores" and
// "busy" (the machine's load while the run trained) came later: a record
// without them was not measured (-1, not busy). "usable_cores" (the cores
// the run's process could use) came later: without it, 0 (not known).
// "step_epochs" (how many of the last epochs the step totals cover: the
// first is left out once a second finished) came later: without it, 0, all.
// "batch_losses" (the decimated loss per batch, record/batch_loss_trace.h)
// came later: without it, none (the charts draw a point per epoch). "notes"
// and "tags" (the user's, from the runs table) came last: without them, none.
std::string to_json(const RunRecord& r) {
    std::string epochs = "[";
    for (std::size_t i = 0; i < r.epochs.size(); ++i)
        epochs += (i ? ",\n    " : "\n    ") + epoch_json(r.epochs[i]);
    epochs += r.epochs.empty() ? "]" : "\n  ]";
    return "{\n  \"format\": \"dp-workbench run record\",\n  \"version\": 1,\n  \"id\": " +
           quoted(r.id) + ",\n  \"started_at\": " + quoted(r.started_at) +
           ",\n  \"source\": " + quoted(r.source) + ",\n  \"status\": " + quoted(run_status_name(r.status)) +
           ",\n  \"error\": " + quoted(r.error) + ",\n  \"processes\": " +
           std::to_string(r.processes) + ",\n  \"comparison_group\": " +
           quoted(r.comparison_group) + ",\n  \"deterministic\": " +
           (r.deterministic ? "true" : "false") + ",\n  \"name\": " + quoted(r.name) +
           ",\n  \"notes\": " + quoted(r.notes) + ",\n  \"tags\": " + string_list(r.tags) +
           ",\n  \"other_cores\": " + json_number(r.other_cores) +
           ",\n  \"busy\": " + (r.busy ? "true" : "false") +
           ",\n  \"usable_cores\": " + std::to_string(r.usable_cores) +
           ",\n  \"label\": " + quoted(r.label()) +
           ",\n  \"config\": " + config_json(r.config) + ",\n  \"epochs\": " + epochs +
           ",\n  \"batch_losses\": " + batch_losses_json(r.batch_losses) +
           ",\n  \"steps\": " + std::to_string(r.steps) +
           ",\n  \"step_epochs\": " + std::to_string(r.step_epochs) +
           ",\n  \"step_totals\": " + step_totals_json(r.step_totals) + "\n}\n";
}

void write_run_record(const std::filesystem::path& file, const RunRecord& record) {
    AtomicFile out(file);
    out.write(to_json(record));
    out.commit();
}

std::vector<DeviceStepTiming> step_totals_from_json(std::string_view json_array, const std::string& path) {
    JsonReader reader(json_array, "not a valid run record: \"" + path + "\" is not JSON");
    check_syntax(reader);
    reader.seek(0);
    if (reader.peek_type() != JsonType::array) fail('"' + path + "\" is not an array");
    return read_step_totals(json_array, reader, path);
}

RunRecord run_record_from_json(std::string_view bytes) {
    if (const std::string problem = encoding_problem(bytes); !problem.empty())
        throw Error("not a run record: " + problem);
    // A UTF-8 byte-order mark, which some editors add, is no part of the JSON.
    const std::string_view text = bytes.starts_with("\xef\xbb\xbf") ? bytes.substr(3) : bytes;
    JsonReader reader(text, std::string(kNotJson));
    check_syntax(reader);
    reader.seek(0);
    if (reader.peek_type() != JsonType::object) throw Error("not a run record: the JSON is not an object");
    const FieldReader r(text, reader.position(), {});

    r.value("format");  // missing: named as such
    if (r.type("format") != JsonType::string || r.string("format") != kFormat)
        throw Error("not a run record: \"format\" is not \"" + std::string(kFormat) + '"');
    const JsonNumber version = r.number_value("version");
    if (version.value != kVersion)
        throw Error("unsupported run record version " +
                    (version.whole ? std::to_string(*version.whole) : json_number(version.value)) +
                    " (this DP Workbench reads version " + std::to_string(kVersion) +
                    "): import it with the DP Workbench that wrote it");

    RunRecord record;
    record.id = r.string("id");
    record.started_at = r.string("started_at");
    record.source = r.string("source");
    const std::string status = r.string("status");
    if (const auto parsed = parse_run_status(status))
        record.status = *parsed;
    else
        fail(r.name("status") + " is not a run status: " + utf16_prefix(status, 40));
    record.error = r.string("error");
    record.processes = r.integer<int>("processes");
    // Optional: records written before these keys existed lack them.
    if (r.has("comparison_group")) record.comparison_group = r.string("comparison_group");
    if (r.has("deterministic")) record.deterministic = r.boolean("deterministic");
    if (r.has("name")) record.name = r.string("name");
    if (r.has("notes")) record.notes = r.string("notes");
    if (r.has("tags")) {
        JsonReader tags = r.array("tags");
        tags.parse_array([&](std::size_t i) {
            if (tags.peek_type() != JsonType::string)
                fail('"' + r.field_path("tags") + '[' + std::to_string(i) + "]\" is not a string");
            record.tags.push_back(tags.parse_string());
        });
    }
    record.config = read_config(r.object("config"));
    JsonReader epochs = r.array("epochs");
    read_objects(text, epochs, "epochs",
                 [&](const FieldReader& epoch) { record.epochs.push_back(read_epoch(epoch)); });
    // Optional: records written before step timings were kept have none.
    if (r.has("steps")) {
        record.steps = r.integer<std::int64_t>("steps");
        if (record.steps < 0) fail(r.name("steps") + " is negative");
    }
    if (r.has("step_epochs")) {
        record.step_epochs = r.integer<int>("step_epochs");
        if (record.step_epochs < 0 || record.step_epochs > int(record.epochs.size()))
            fail(r.name("step_epochs") + " is not between 0 and the number of epochs");
    }
    if (r.has("other_cores")) record.other_cores = r.number("other_cores");
    if (r.has("busy")) record.busy = r.boolean("busy");
    if (r.has("usable_cores")) {
        record.usable_cores = r.integer<int>("usable_cores");
        if (record.usable_cores < 0) fail(r.name("usable_cores") + " is negative");
    }
    if (r.has("step_totals")) {
        JsonReader totals = r.array("step_totals");
        record.step_totals = read_step_totals(text, totals, r.field_path("step_totals"));
    }
    if (r.has("batch_losses")) {
        const JsonReader losses = r.array("batch_losses");
        JsonReader end = losses;
        end.skip_value();
        record.batch_losses = batch_losses_from_json(
            text.substr(losses.position(), end.position() - losses.position()), r.field_path("batch_losses"));
    }
    check_recorded_run(record);
    return record;
}

RunRecord read_run_record(const std::filesystem::path& file) {
    // Read as every input is (io/bounded_file.h): a FIFO, a device or a
    // folder is refused before it is read, and so is a file over the cap;
    // its errors name the path.
    const std::string bytes = read_bounded_file(file, std::uint64_t(kMaxRunRecordBytes));
    RunRecord record;
    try {
        record = run_record_from_json(bytes);
    } catch (const Error& error) {
        throw Error(file.string() + ": " + error.what());
    }
    // The file is a snapshot of a run that no process here carries on: a run
    // it calls running was cut off where the file ends, for this history.
    if (record.status == RunStatus::running) record.status = RunStatus::interrupted;
    return record;
}

}  // namespace dp
