#include "record/run_record_rules.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/exception_message.h"
#include "core/format.h"
#include "parallel/communicator_factory.h"
#include "config/config_fields.h"

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
                                               : dp::format("between %g and %g", low, high);
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
    // communicator, "mpi", where the strategy goes (checkDevices allows it):
    // their settings are checked as the ring they were run with.
    dp::TrainConfig checked = config;
    if (checked.allreduce == "mpi")
        checked.allreduce = "ring";
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
    // The strategies a run uses, and "mpi", what earlier mpirun records say.
    std::vector<std::string> strategies = dp::thread_communicator_strategies();
    strategies.push_back("mpi");
    if (std::find(strategies.begin(), strategies.end(), record.config.allreduce) == strategies.end())
        fail("\"config.allreduce\" is not an all-reduce strategy: " + record.config.allreduce);
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
        requireBetween(at + "seconds", epoch.seconds, 0, INFINITY);
        if (!std::isnan(epoch.parameter_drift))  // NaN: not measured
            requireBetween(at + "parameter_drift", epoch.parameter_drift, 0, INFINITY);
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
    if (const std::size_t length = utf16_length(record.name); length > std::size_t(kMaxRunNameLength))
        fail(dp::format("\"name\" is %zu characters long; a run's name takes at most %d", length,
                        kMaxRunNameLength));
    // Legends, the status line and messages show the name on one line.
    if (std::any_of(record.name.begin(), record.name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        fail("\"name\" holds a line break or another control character: a run's name is one line");
    checkSettings(record.config);
    checkDevices(record);
    checkEpochs(record);
    if (record.steps < 0)
        fail("\"steps\" is negative");
}

}  // namespace dp
