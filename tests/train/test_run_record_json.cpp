// The run record's JSON read back by the engine's own reader
// (record/run_record_json.h), the one reader the workbench imports with:
// what to_json writes reads back field by field, and what is not a record
// is refused with one line naming the field. Qt is only the test harness.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>

#include "config/config_fields.h"
#include "core/error.h"
#include "error_of.h"
#include "every_field_record.h"
#include "record/run_record_json.h"
#include "record/run_record_rules.h"
#include "record/step_timing_fields.h"

namespace {

bool same_double(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// `json` with the first `from` replaced by `to` (which must be there).
std::string replaced(std::string json, const std::string& from, const std::string& to) {
    const std::size_t at = json.find(from);
    if (at == std::string::npos) qFatal("'%s' is not in the JSON", from.c_str());
    return json.replace(at, from.size(), to);
}

#define VERIFY_REFUSED(json, problem)                                                          \
    do {                                                                                       \
        const std::string error = error_of([&] { dp::run_record_from_json(json); });           \
        QVERIFY2(error.find(problem) != std::string::npos, error.c_str());                     \
        QVERIFY2(error.find('\n') == std::string::npos, error.c_str());                        \
    } while (false)

}  // namespace

class TestRunRecordJson : public QObject {
    Q_OBJECT

private slots:
    void readsBackEveryFieldAsWritten() {
        const dp::RunRecord record = every_field_record();
        const dp::RunRecord read = dp::run_record_from_json(dp::to_json(record));
        QCOMPARE(read.id, record.id);
        QCOMPARE(read.started_at, record.started_at);
        QCOMPARE(read.source, record.source);
        QVERIFY(read.status == record.status);
        QCOMPARE(read.error, record.error);
        QCOMPARE(read.processes, record.processes);
        QCOMPARE(read.comparison_group, record.comparison_group);
        QCOMPARE(read.deterministic, record.deterministic);
        QCOMPARE(read.other_cores, record.other_cores);
        QCOMPARE(read.busy, record.busy);
        QCOMPARE(read.usable_cores, record.usable_cores);
        QCOMPARE(read.name, record.name);
        QCOMPARE(read.notes, record.notes);
        QCOMPARE(read.tags, record.tags);
        // Every setting of the schema, as its exact text (0.1f stays 0.1f).
        for (const dp::ConfigField& field : dp::config_fields())
            QVERIFY2(dp::field_text(field, read.config) == dp::field_text(field, record.config), field.name);
        QCOMPARE(read.config.seed, record.config.seed);
        QCOMPARE(read.config.devices, record.config.devices);
        QCOMPARE(read.epochs.size(), record.epochs.size());
        for (std::size_t i = 0; i < record.epochs.size(); ++i) {
            const dp::EpochMetrics &a = read.epochs[i], &b = record.epochs[i];
            QCOMPARE(a.epoch, b.epoch);
            QVERIFY(a.train_loss == b.train_loss);
            QVERIFY(a.train_acc == b.train_acc);
            QVERIFY(a.test_acc == b.test_acc);
            QVERIFY(a.seconds == b.seconds);
            QVERIFY(same_double(a.parameter_drift, b.parameter_drift));
            QVERIFY(same_double(a.test_loss, b.test_loss));
            QCOMPARE(a.device_cpu, b.device_cpu);
        }
        QCOMPARE(read.steps, record.steps);
        QCOMPARE(read.step_epochs, record.step_epochs);
        QCOMPARE(read.step_totals.size(), record.step_totals.size());
        for (std::size_t i = 0; i < record.step_totals.size(); ++i)
            for (const dp::StepTimingField& field : dp::step_timing_fields())
                QVERIFY2(dp::step_timing_value(field, read.step_totals[i]) ==
                             dp::step_timing_value(field, record.step_totals[i]),
                         field.name);
        QCOMPARE(read.batch_losses.size(), record.batch_losses.size());
        for (std::size_t i = 0; i < record.batch_losses.size(); ++i) {
            const dp::BatchLossPoint &a = read.batch_losses[i], &b = record.batch_losses[i];
            QVERIFY(a.step == b.step && a.epoch == b.epoch && a.seconds == b.seconds);
            QVERIFY(same_double(a.loss, b.loss));
        }
        QCOMPARE(dp::to_json(read), dp::to_json(record));
    }

    void readsAFileAndCallsARunItLeftRunningInterrupted() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("run.json").toStdString();
        dp::RunRecord record = every_field_record();
        record.status = dp::RunStatus::running;
        dp::write_run_record(file, record);
        QVERIFY(dp::read_run_record(file).status == dp::RunStatus::interrupted);
        const std::string missing = dir.filePath("missing.json").toStdString();
        const std::string error = error_of([&] { dp::read_run_record(missing); });
        QVERIFY2(error.find(missing) != std::string::npos, error.c_str());
    }

    // What Qt's JSON reader, the one this replaced, accepted besides what
    // to_json writes: members it does not know, a key given twice (the last
    // counts), a byte-order mark, whole numbers written as fractions.
    void acceptsWhatTheFormatAllows() {
        const std::string good = dp::to_json(every_field_record());
        const std::string unknown =
            replaced(good, "\"version\": 1,", "\"version\": 1, \"extra\": {\"a\": [1, 2.5e3, null, true, \"x\"]},");
        QCOMPARE(dp::run_record_from_json(unknown).id, every_field_record().id);
        const std::string twice = replaced(good, "\"processes\": 4,", "\"processes\": 9, \"processes\": 4,");
        QCOMPARE(dp::run_record_from_json(twice).processes, 4);
        QCOMPARE(dp::run_record_from_json("\xef\xbb\xbf" + good).id, every_field_record().id);
        QCOMPARE(dp::run_record_from_json(replaced(good, "\"processes\": 4", "\"processes\": 4.0e0")).processes, 4);
        // Arrays and objects nested 1024 deep, as Qt took them.
        const std::string deep = replaced(good, "\"version\": 1,",
                                          "\"version\": 1, \"deep\": " + std::string(1023, '[') +
                                              std::string(1023, ']') + ",");
        QCOMPARE(dp::run_record_from_json(deep).id, every_field_record().id);
        // A record from before gradient accumulation (the fuzz corpus's seeds) reads as 1.
        dp::RunRecord older = every_field_record();
        older.config.accumulate = 3;
        const std::string json = dp::to_json(older);
        QCOMPARE(dp::run_record_from_json(replaced(json, "\"accumulate\": 3,", "")).config.accumulate, 1);
    }

    // The test loss: written as a number, null when not measured, and a
    // record from before it was kept (no "test_loss") reads as NaN.
    void testLossIsWrittenAndOlderRecordsReadWithout() {
        const dp::RunRecord record = every_field_record();
        const std::string json = dp::to_json(record);
        QVERIFY(json.find("\"test_loss\": 2.302585093") != std::string::npos);
        QVERIFY(json.find("\"test_loss\": null") != std::string::npos);
        QCOMPARE(dp::run_record_from_json(json).epochs[0].test_loss, record.epochs[0].test_loss);
        std::string older = json;  // every "test_loss": value, taken out
        for (std::size_t at; (at = older.find("\"test_loss\": ")) != std::string::npos;)
            older.erase(at, older.find(", ", at) + 2 - at);
        QVERIFY2(older.find("\"test_acc\": ") != std::string::npos, older.c_str());
        const dp::RunRecord read = dp::run_record_from_json(older);
        QCOMPARE(read.epochs.size(), std::size_t(2));
        QVERIFY(std::isnan(read.epochs[0].test_loss) && std::isnan(read.epochs[1].test_loss));
        QCOMPARE(read.epochs[0].test_acc, record.epochs[0].test_acc);
    }

    // Issue 42: the loss per batch, kept decimated: a record from before it
    // (no "batch_losses") reads with none, and a point that is not
    // [step, epoch, seconds, loss] is refused by name.
    void batchLossesAreOptionalAndChecked() {
        const dp::RunRecord record = every_field_record();
        const std::string json = dp::to_json(record);
        QVERIFY(json.find("\"batch_losses\": [[1, 0.02, 0.125, 2.302585092994046], ") != std::string::npos);
        const std::size_t at = json.find(",\n  \"batch_losses\"");
        std::string older = json;
        older.erase(at, older.find(",\n  \"steps\"", at) - at);
        QVERIFY(dp::run_record_from_json(older).batch_losses.empty());
        VERIFY_REFUSED(replaced(json, "[1, 0.02, 0.125,", "[1, 0.02,"), "\"batch_losses[0]\" is not an array of 4 numbers");
        VERIFY_REFUSED(replaced(json, "[1, 0.02, 0.125,", "[-1, 0.02, 0.125,"), "\"batch_losses[0]\" has a negative");
        VERIFY_REFUSED(replaced(json, "\"batch_losses\": [", "\"batch_losses\": [\"x\", "),
                       "\"batch_losses[0]\" is not an array");
        VERIFY_REFUSED(replaced(json, "[1, 0.02, 0.125,", "[1, 0.02, null,"), "\"batch_losses[0]\" is not an array of 4 numbers");
        VERIFY_REFUSED(replaced(json, "\"tags\": [\"baseline\"", "\"tags\": [\"a,b\""),
                       "\"tags\" holds a tag with a comma");
        VERIFY_REFUSED(replaced(json, "\"tags\": [\"baseline\"", "\"tags\": [1"), "\"tags[0]\" is not a string");
        std::string untagged = json;  // a record from before notes and tags
        untagged.erase(untagged.find("\n  \"notes\""), untagged.find("\n  \"other_cores\"") - untagged.find("\n  \"notes\""));
        const dp::RunRecord plain = dp::run_record_from_json(untagged);
        QVERIFY(plain.notes.empty() && plain.tags.empty());
        // A trace kept by a live run stays within what a record may hold.
        dp::BatchLossTrace trace;
        for (int batch = 1; batch <= 100'000; ++batch) trace.append(dp::batch_loss_point({1, batch, 100'000, 1.0}, 0));
        QVERIFY(trace.points().size() <= std::size_t(2 * dp::BatchLossTrace::kRecordPoints + 1));
        dp::RunRecord many = record;
        many.batch_losses.assign(std::size_t(dp::kMaxRecordBatchLosses) + 1, {1, 1, 1, 1});
        VERIFY_REFUSED(dp::to_json(many), "\"batch_losses\" has");
    }

    void refusesWhatIsNotARecord() {
        const std::string good = dp::to_json(every_field_record());
        VERIFY_REFUSED(replaced(good, "\"lr\": ", "\"learning_rate\": "), "\"config.lr\" is missing");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4", "\"processes\": \"4\""), "\"processes\" is not a number");
        VERIFY_REFUSED(replaced(good, "\"test_acc\": 0.3333333333333333", "\"test_acc\": null"),
                       "not a valid run record: \"epochs[0].test_acc\" is not a number");
        VERIFY_REFUSED(replaced(good, "\"deterministic\": false", "\"deterministic\": 0"),
                       "\"deterministic\" is not true or false");
        VERIFY_REFUSED(replaced(good, "\"cpu:1\"", "1"), "\"config.devices[1]\" is not a string");
        VERIFY_REFUSED(replaced(good, "\"epochs\": [", "\"epochs\": [1, "), "\"epochs[0]\" is not an object");
        // 2^64 - 1 and 2^63 are past what an int64 holds exactly: refused, not rounded.
        VERIFY_REFUSED(replaced(good, "\"seed\": 9223372036854775807", "\"seed\": 18446744073709551615"),
                       "\"config.seed\" is not a whole number in range");
        VERIFY_REFUSED(replaced(good, "\"seed\": 9223372036854775807", "\"seed\": 9223372036854775808"),
                       "\"config.seed\" is not a whole number in range");
        VERIFY_REFUSED(replaced(good, "\"seed\": 9223372036854775807", "\"seed\": -1"),
                       "\"config.seed\" is not a whole number in range");
        VERIFY_REFUSED(replaced(good, "\"epochs\": 7", "\"epochs\": 2.5"), "\"config.epochs\" is not a whole number");
        VERIFY_REFUSED(replaced(good, "\"shard\": 3000", "\"shard\": -3000"), "\"step_totals[0].shard\" is negative");
        VERIFY_REFUSED(replaced(good, "\"version\": 1", "\"version\": 2"), "unsupported run record version 2");
        VERIFY_REFUSED(replaced(good, "dp-workbench run record", "safetensors"), "\"format\" is not");
        VERIFY_REFUSED(replaced(good, "\"status\": \"failed\"", "\"status\": \"done\""),
                       "\"status\" is not a run status: done");
        VERIFY_REFUSED(std::string("[1, 2]"), "not a run record: the JSON is not an object");
    }

    // Not JSON at all: each said with the byte it was found at.
    void refusesWhatIsNotJson() {
        const std::string good = dp::to_json(every_field_record());
        VERIFY_REFUSED(good + "x", "not a run record: not JSON at byte " + std::to_string(good.size()));
        VERIFY_REFUSED(good.substr(0, good.size() / 2), "not JSON");
        VERIFY_REFUSED(std::string(), "not JSON at byte 0");
        VERIFY_REFUSED(std::string("7"), "not JSON at byte 0");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4", "\"processes\": 04"), "not JSON");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4", "\"processes\": +4"), "not JSON");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4", "\"processes\": 4."), "not JSON");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4,", "\"processes\": 4,,"), "not JSON");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4", "\"processes\": 1e400"), "number out of range");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4", "\"processes\": tru"), "not JSON");
        VERIFY_REFUSED(replaced(good, "\"processes\": 4", "\"processes\": NaN"), "not JSON");
        VERIFY_REFUSED(replaced(good, "\"mpirun\"", "'mpirun'"), "not JSON");
        // One level past the 1024 Qt's reader took, even in a member no one reads.
        VERIFY_REFUSED(replaced(good, "\"version\": 1,",
                                "\"version\": 1, \"deep\": " + std::string(1024, '[') + std::string(1024, ']') + ","),
                       "nested too deeply");
        VERIFY_REFUSED(std::string("\xff\xfe{\0\"\0", 6), "UTF-16 text, not UTF-8");
        VERIFY_REFUSED(replaced(good, "mpirun", "mpi\xe9run"), "not UTF-8 text");
    }

    // The history's step_totals column reads through the same code.
    void readsStepTotalsAsTheHistoryKeepsThem() {
        const dp::RunRecord record = every_field_record();
        const auto totals = dp::step_totals_from_json(dp::step_totals_json(record.step_totals), "step_totals");
        QCOMPARE(totals.size(), record.step_totals.size());
        QCOMPARE(totals[3].shard, 2992);
        QVERIFY(totals[3].data == 1e11);
        QVERIFY(dp::step_totals_from_json("[]", "step_totals").empty());
        const auto refused = [](const std::string& json) {
            return error_of([&] { dp::step_totals_from_json(json, "step_totals"); });
        };
        QVERIFY(refused("[{\"shard\": 1}]").find("\"step_totals[0].data\" is missing") != std::string::npos);
        QVERIFY(refused("{}").find("\"step_totals\" is not an array") != std::string::npos);
        QVERIFY(refused("[").find("\"step_totals\" is not JSON at byte 1") != std::string::npos);
        // DataParallel's gather and broadcast came later: a record without them read as 0.
        const std::string older =
            R"([{"shard": 1, "data": 0.1, "forward": 0.2, "backward": 0.3, "allreduce": 0.4, "update": 0.5}])";
        const auto read = dp::step_totals_from_json(older, "step_totals");
        QVERIFY(read.size() == 1 && read[0].gather == 0 && read[0].broadcast == 0 && read[0].update == 0.5);
        dp::DeviceStepTiming dataparallel = read[0];
        dataparallel.gather = 0.25;
        dataparallel.broadcast = 0.125;
        const auto again = dp::step_totals_from_json(dp::step_totals_json({dataparallel}), "step_totals");
        QVERIFY(again[0].gather == 0.25 && again[0].broadcast == 0.125);
        std::string negative = older;
        negative.insert(negative.size() - 2, ", \"broadcast\": -1");
        QVERIFY2(refused(negative).find("\"step_totals[0].broadcast\" is negative") != std::string::npos,
                 refused(negative).c_str());
    }
};

QTEST_GUILESS_MAIN(TestRunRecordJson)
#include "test_run_record_json.moc"
