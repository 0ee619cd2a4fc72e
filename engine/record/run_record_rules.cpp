#include "record/run_record_rules.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <variant>

#include "core/error.h"
#include "core/exception_message.h"
#include "core/format.h"
#include "config/config_fields.h"
#include "record/step_timing_fields.h"

namespace dp {
namespace {

// Linux's PATH_MAX: no path setting of a real run is longer.
constexpr std::size_t kMaxSettingTextBytes = 4096;
// Ids, times, sources and device names: short words.
constexpr std::size_t kMaxWordBytes = 256;
// A failed run's one-line message may quote a path or two.
constexpr std::size_t kMaxErrorBytes = 16384;

[[noreturn]] void fail(const std::string& problem)
{
    throw dp::Error("not a valid run record: " + problem);
}

std::string quotedName(const std::string& path) { return '"' + path + '"'; }

void requireLength(const std::string& path, const std::string& text, std::size_t maxBytes)
{
    if (text.size() > maxBytes)
        fail(dp::format("%s is %zu bytes long, more than the %zu a run writes there",
                        quotedName(path).c_str(), text.size(), maxBytes));
}

// `value` within [low, high]; NaN is out of every range.
void requireBetween(const std::string& path, double value, double low, double high)
{
    if (value >= low && value <= high)
        return;
    const std::string range = std::isinf(high) ? dp::format("%g or more", low)
                                               : dp::format("between %.10g and %.10g", low, high);
    // Enough digits that a value just past the bound does not print as it.
    fail(dp::format("%s must be %s (got %.10g)", quotedName(path).c_str(), range.c_str(), value));
}

// dp-train's own rules for its settings, the settings named as the record names them.
void checkSettings(const dp::TrainConfig& config)
{
    // Lengths first: the messages below quote the text they refuse.
    for (const dp::ConfigField& field : dp::config_fields())
        if (dp::field_kind(field) == dp::FieldKind::text)
            requireLength("config." + std::string(field.name), dp::field_text(field, config),
                          kMaxSettingTextBytes);
    // Records of earlier dp-train --distributed builds name the MPI
    // communicator, mpi, where the strategy goes (reading the record takes
    // it): their settings are checked as the ring they were run with.
    dp::TrainConfig checked = config;
    checked.allreduce = dp::strategy_as_run(checked.allreduce);
    try {
        dp::validate_settings(checked);
    } catch (...) {
        const std::string message = dp::render_settings(
                dp::current_exception_message(),
                [](const dp::ConfigField& field) { return "\"config." + std::string(field.name) + '"'; });
        fail("its settings: " + message);
    }
}

// One device per rank of an mpirun record, each a short id.
void checkDevices(const dp::RunRecord& record)
{
    const std::vector<std::string>& devices = record.config.devices;
    if (devices.empty())
        fail("\"config.devices\" is empty: a run ran on at least one device");
    if (devices.size() > std::size_t(kMaxRecordDevices))
        fail(dp::format("\"config.devices\" lists %zu devices, more than the %d a record may list",
                        devices.size(), kMaxRecordDevices));
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const std::string path = dp::format("config.devices[%zu]", i);
        if (devices[i].empty())
            fail(quotedName(path) + " is empty");
        requireLength(path, devices[i], kMaxWordBytes);
    }
    if (record.processes < 1 || std::size_t(record.processes) > devices.size())
        fail(dp::format("\"processes\" must be between 1 and the %zu devices listed (got %d)",
                        devices.size(), record.processes));
    try {
        dp::validate_ranks(record.config, int(devices.size()));
    } catch (const dp::Error& error) {
        fail(std::string("its settings: ") + error.what());
    }
}

void checkEpochs(const dp::RunRecord& record)
{
    if (record.epochs.size() > std::size_t(kMaxRecordEpochs))
        fail(dp::format("\"epochs\" lists %zu epochs; the workbench takes records of at most %d",
                        record.epochs.size(), kMaxRecordEpochs));
    int previous = -1;
    for (std::size_t i = 0; i < record.epochs.size(); ++i) {
        const dp::EpochMetrics& epoch = record.epochs[i];
        const std::string at = dp::format("epochs[%zu].", i);
        if (epoch.epoch <= previous || epoch.epoch > record.config.epochs)
            fail(dp::format("\"%sepoch\" must be above the epoch before it (%d) and at most the "
                            "run's %d epochs (got %d)",
                            at.c_str(), previous, record.config.epochs, epoch.epoch));
        previous = epoch.epoch;
        requireBetween(at + "train_loss", epoch.train_loss, 0, INFINITY);
        requireBetween(at + "train_acc", epoch.train_acc, 0, 1);
        requireBetween(at + "test_acc", epoch.test_acc, 0, 1);
        requireBetween(at + "seconds", epoch.seconds, 0, kMaxEpochSeconds);
        if (epoch.device_cpu.size() > std::size_t(kMaxRecordDevices))
            fail(dp::format("\"%sdevice_cpu\" lists more than %d devices", at.c_str(), kMaxRecordDevices));
        for (std::size_t d = 0; d < epoch.device_cpu.size(); ++d)
            requireBetween(dp::format("%sdevice_cpu[%zu]", at.c_str(), d), epoch.device_cpu[d], 0, 1);
        if (!std::isnan(epoch.parameter_drift))  // NaN: not measured
            requireBetween(at + "parameter_drift", epoch.parameter_drift, 0, INFINITY);
    }
}

// Each device's phases summed over the run's steps: none longer than the
// run could have taken, kMaxRecordEpochs epochs of kMaxEpochSeconds.
void checkStepTotals(const dp::RunRecord& record)
{
    for (std::size_t d = 0; d < record.step_totals.size(); ++d)
        for (const dp::StepTimingField& field : dp::step_timing_fields())
            if (std::holds_alternative<double dp::DeviceStepTiming::*>(field.member))
                requireBetween(dp::format("step_totals[%zu].%s", d, field.name),
                               dp::step_timing_value(field, record.step_totals[d]), 0,
                               kMaxRecordEpochs * kMaxEpochSeconds);
}

// The decimated loss per batch: no more points than a trace keeps, each
// within the run's steps, epochs and time; a diverged run's loss may be NaN.
void checkBatchLosses(const dp::RunRecord& record)
{
    if (record.batch_losses.size() > std::size_t(kMaxRecordBatchLosses))
        fail(dp::format("\"batch_losses\" has %zu points; a record keeps at most %d",
                        record.batch_losses.size(), kMaxRecordBatchLosses));
    for (std::size_t i = 0; i < record.batch_losses.size(); ++i) {
        const dp::BatchLossPoint& point = record.batch_losses[i];
        const std::string at = dp::format("batch_losses[%zu].", i);
        requireBetween(at + "step", point.step, 0, double(kMaxRecordSteps));
        requireBetween(at + "epoch", point.epoch, 0, kMaxRecordEpochs);
        requireBetween(at + "seconds", point.seconds, 0, kMaxRecordEpochs * kMaxEpochSeconds);
        if (!std::isnan(point.loss))
            requireBetween(at + "loss", point.loss, 0, INFINITY);
    }
}

// How many UTF-16 code units `text` (UTF-8) takes: how Qt, and so the
// window, counts characters (a character past U+FFFF takes two).
std::size_t utf16_length(const std::string& text)
{
    std::size_t length = 0;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte & 0xC0) != 0x80)  // not a continuation byte: a character starts
            length += byte >= 0xF0 ? 2 : 1;
    }
    return length;
}

// The bidirectional control characters (Unicode's Bidi_Control property),
// as UTF-8: U+061C, U+200E and U+200F, U+202A to U+202E, U+2066 to U+2069.
// The code point of the first in `text`, or 0.
char32_t first_bidi_control(const std::string& text)
{
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        const auto a = static_cast<unsigned char>(text[i]), b = static_cast<unsigned char>(text[i + 1]);
        if (a == 0xD8 && b == 0x9C) return 0x061C;
        if (i + 2 >= text.size() || a != 0xE2) continue;
        const auto c = static_cast<unsigned char>(text[i + 2]);
        if (b == 0x80 && (c == 0x8E || c == 0x8F || (c >= 0xAA && c <= 0xAE))) return 0x2000 + (c - 0x80);
        if (b == 0x81 && c >= 0xA6 && c <= 0xA9) return 0x2040 + (c - 0x80);
    }
    return 0;
}

// C0 controls and DEL, and C1 controls (U+0080 to U+009F: C2 80 to C2 9F).
bool has_control_character(const std::string& text)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x20 || byte == 0x7f) return true;
        if (byte == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F) return true;
    }
    return false;
}

// Whether `text` is `digits` decimal digits from `at`, and their value.
bool digits_at(const std::string& text, std::size_t at, int digits, int& value)
{
    value = 0;
    for (int i = 0; i < digits; ++i) {
        const char c = text[at + std::size_t(i)];
        if (c < '0' || c > '9') return false;
        value = value * 10 + (c - '0');
    }
    return true;
}

}  // namespace

void check_recorded_run(const RunRecord& record)
{
    requireLength("id", record.id, kMaxWordBytes);
    if (record.id.empty())
        fail("\"id\" is empty");
    requireLength("started_at", record.started_at, kMaxWordBytes);
    requireLength("source", record.source, kMaxWordBytes);
    requireLength("comparison_group", record.comparison_group, kMaxWordBytes);
    requireLength("error", record.error, kMaxErrorBytes);
    if (!is_record_time(record.started_at))
        fail("\"started_at\" is not a time as a run writes it, a real date and time of the form "
             "2026-11-22T01:30:00Z (got " + record.started_at + ")");
    if (const std::string problem = run_name_problem(record.name); !problem.empty())
        fail("\"name\" " + problem);
    if (const std::string problem = run_notes_problem(record.notes); !problem.empty())
        fail("\"notes\" " + problem);
    if (const std::string problem = run_tags_problem(record.tags); !problem.empty())
        fail("\"tags\" " + problem);
    if (record.other_cores != -1 && !(record.other_cores >= 0 && record.other_cores <= kMaxMachineCores))
        fail(dp::format("\"other_cores\" must be -1 (not measured) or between 0 and %d (got %.10g)",
                        kMaxMachineCores, record.other_cores));
    requireBetween("usable_cores", record.usable_cores, 0, kMaxMachineCores);
    checkSettings(record.config);
    checkDevices(record);
    checkEpochs(record);
    requireBetween("steps", double(record.steps), 0, double(kMaxRecordSteps));
    checkStepTotals(record);
    checkBatchLosses(record);
}

std::string run_name_problem(const std::string& name)
{
    if (const std::size_t length = utf16_length(name); length > std::size_t(kMaxRunNameLength))
        return dp::format("is %zu characters long; a run's name takes at most %d", length, kMaxRunNameLength);
    // Legends, the status line and messages show the name on one line.
    if (has_control_character(name))
        return "holds a line break or another control character: a run's name is one line";
    if (const char32_t bidi = first_bidi_control(name))
        return dp::format("holds U+%04X, a bidirectional control character, which changes the order the "
                          "text after it reads in: take it out",
                          unsigned(bidi));
    return {};
}

std::string run_notes_problem(const std::string& notes)
{
    if (const std::size_t length = utf16_length(notes); length > std::size_t(kMaxRunNotesLength))
        return dp::format("are %zu characters long; a run's notes take at most %d", length, kMaxRunNotesLength);
    if (const char32_t bidi = first_bidi_control(notes))
        return dp::format("hold U+%04X, a bidirectional control character, which changes the order the "
                          "text after it reads in: take it out",
                          unsigned(bidi));
    return {};
}

std::string run_tags_problem(const std::vector<std::string>& tags)
{
    if (tags.size() > std::size_t(kMaxRunTags))
        return dp::format("holds %zu tags; a run takes at most %d", tags.size(), kMaxRunTags);
    for (const std::string& tag : tags) {
        if (tag.empty())
            return "holds an empty tag: leave it out";
        if (const std::size_t length = utf16_length(tag); length > std::size_t(kMaxRunTagLength))
            return dp::format("holds a tag %zu characters long; a tag takes at most %d", length, kMaxRunTagLength);
        if (tag.find(',') != std::string::npos)
            return "holds a tag with a comma, which separates tags: \"" + tag + "\"";
        if (has_control_character(tag) || first_bidi_control(tag))
            return "holds a tag with a line break or another control character: a tag is one line";
    }
    return {};
}

bool is_record_time(const std::string& text)
{
    // "YYYY-MM-DDTHH:MM:SSZ"
    if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
        text[16] != ':' || text[19] != 'Z')
        return false;
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits_at(text, 0, 4, year) || !digits_at(text, 5, 2, month) || !digits_at(text, 8, 2, day) ||
        !digits_at(text, 11, 2, hour) || !digits_at(text, 14, 2, minute) || !digits_at(text, 17, 2, second))
        return false;
    if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60)
        return false;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

}  // namespace dp
