// The run history database, run record import, exports and the cluster
// command line: dp_run_history, without widgets.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include "cluster_command.h"
#include "core/error.h"
#include "history_sink.h"
#include "io/workbench_files.h"
#include "run_comparison.h"
#include "run_export.h"
#include "every_field_record.h"
#include "process_locale.h"
#include "run_history.h"
#include "record/run_process.h"
#include "record/run_record_json.h"
#include "record/run_record_rules.h"
#include "config/config_fields.h"
#include "record/step_timing_fields.h"

namespace {

// The engine's run record reader (record/run_record_json.h), on Qt's bytes and paths.
dp::RunRecord recordFromJson(const QByteArray& json)
{
    return dp::run_record_from_json(std::string_view(json.constData(), std::size_t(json.size())));
}

dp::RunRecord readRecordFile(const QString& path)
{
    return dp::read_run_record(QFile::encodeName(path).toStdString());
}

bool sameDouble(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

#define VERIFY_SAME_DOUBLE(a, b)                                                                   \
    QVERIFY2(sameDouble((a), (b)),                                                                 \
             qPrintable(QStringLiteral(#a " = %1, " #b " = %2")                                  \
                                .arg((a), 0, 'g', 17)                                              \
                                .arg((b), 0, 'g', 17)))

void compareConfigs(const dp::TrainConfig& a, const dp::TrainConfig& b)
{
    QCOMPARE(a.model, b.model);
    QCOMPARE(a.batch_size, b.batch_size);
    QVERIFY(a.lr == b.lr);  // exactly, not QCOMPARE's fuzzy float comparison
    QCOMPARE(a.epochs, b.epochs);
    QCOMPARE(a.seed, b.seed);
    QCOMPARE(a.dataset, b.dataset);
    QCOMPARE(a.data_dir, b.data_dir);
    QCOMPARE(a.input_size, b.input_size);
    QCOMPARE(a.samples, b.samples);
    QCOMPARE(a.limit_train, b.limit_train);
    QCOMPARE(a.limit_test, b.limit_test);
    QCOMPARE(a.shuffle, b.shuffle);
    QCOMPARE(a.load_path, b.load_path);
    QCOMPARE(a.save_path, b.save_path);
    QCOMPARE(a.record_path, b.record_path);
    QCOMPARE(a.preview_samples, b.preview_samples);
    QCOMPARE(a.devices, b.devices);
    QCOMPARE(a.allreduce, b.allreduce);
    VERIFY_SAME_DOUBLE(a.bucket_mb, b.bucket_mb);
    QCOMPARE(a.sync_bn, b.sync_bn);
    VERIFY_SAME_DOUBLE(a.collective_timeout_s, b.collective_timeout_s);
    QCOMPARE(a.slow_devices, b.slow_devices);
}

void compareRecords(const dp::RunRecord& a, const dp::RunRecord& b)
{
    QCOMPARE(a.id, b.id);
    QCOMPARE(a.started_at, b.started_at);
    QCOMPARE(a.source, b.source);
    QCOMPARE(a.pid, b.pid);
    QCOMPARE(a.host, b.host);
    QCOMPARE(a.status, b.status);
    QCOMPARE(a.error, b.error);
    QCOMPARE(a.processes, b.processes);
    QCOMPARE(a.comparison_group, b.comparison_group);
    QCOMPARE(a.deterministic, b.deterministic);
    QCOMPARE(a.other_cores, b.other_cores);
    QCOMPARE(a.busy, b.busy);
    QCOMPARE(a.usable_cores, b.usable_cores);
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.notes, b.notes);
    QCOMPARE(a.tags, b.tags);
    compareConfigs(a.config, b.config);
    QCOMPARE(a.epochs.size(), b.epochs.size());
    for (std::size_t i = 0; i < a.epochs.size(); ++i) {
        QCOMPARE(a.epochs[i].epoch, b.epochs[i].epoch);
        VERIFY_SAME_DOUBLE(a.epochs[i].train_loss, b.epochs[i].train_loss);
        VERIFY_SAME_DOUBLE(a.epochs[i].train_acc, b.epochs[i].train_acc);
        VERIFY_SAME_DOUBLE(a.epochs[i].test_acc, b.epochs[i].test_acc);
        VERIFY_SAME_DOUBLE(a.epochs[i].seconds, b.epochs[i].seconds);
        VERIFY_SAME_DOUBLE(a.epochs[i].parameter_drift, b.epochs[i].parameter_drift);
        VERIFY_SAME_DOUBLE(a.epochs[i].test_loss, b.epochs[i].test_loss);
        QCOMPARE(a.epochs[i].device_cpu, b.epochs[i].device_cpu);
    }
    QCOMPARE(a.steps, b.steps);
    QCOMPARE(a.step_epochs, b.step_epochs);
    QCOMPARE(a.step_totals.size(), b.step_totals.size());
    for (std::size_t d = 0; d < a.step_totals.size(); ++d)
        for (const dp::StepTimingField& field : dp::step_timing_fields())
            VERIFY_SAME_DOUBLE(dp::step_timing_value(field, a.step_totals[d]),
                               dp::step_timing_value(field, b.step_totals[d]));
    QCOMPARE(a.batch_losses.size(), b.batch_losses.size());
    for (std::size_t i = 0; i < a.batch_losses.size(); ++i)
        for (double dp::BatchLossPoint::*value : {&dp::BatchLossPoint::step, &dp::BatchLossPoint::epoch,
                                                   &dp::BatchLossPoint::seconds, &dp::BatchLossPoint::loss})
            VERIFY_SAME_DOUBLE(a.batch_losses[i].*value, b.batch_losses[i].*value);
}

// every_field_record, with what the history keeps beyond a run record's
// JSON: a seed above 2^63 - 1, a NaN loss, the largest double, the process
// that writes the run.
dp::RunRecord everyFieldRecord()
{
    dp::RunRecord record = every_field_record();
    record.pid = 4194304;  // the largest pid_max
    record.host = "node-7.cluster, 'rack' \xC2\xB7 2";
    record.config.seed = std::numeric_limits<std::uint64_t>::max();
    record.epochs[1] = {2, std::numeric_limits<double>::quiet_NaN(), 5e-324, 0.9999999999999999,
                        std::numeric_limits<double>::max()};
    return record;
}

dp::RunRecord madeRun(const std::string& id, const std::string& model, int devices,
                      const std::vector<double>& seconds, const std::vector<double>& testAcc)
{
    dp::RunRecord run;
    run.id = id;
    run.started_at = "2026-01-01T00:00:00Z";
    run.source = "dp-workbench";
    run.status = dp::RunStatus::finished;
    run.config.model = model;
    for (int i = 0; i < devices; ++i)
        run.config.devices.push_back("cpu:" + std::to_string(i));
    for (std::size_t i = 0; i < seconds.size(); ++i)
        run.epochs.push_back({int(i) + 1, 1.0, 0.5, testAcc[i], seconds[i]});
    return run;
}

// The hand-made comparison: a 1-device baseline, the same on 2 devices, and
// a model without a baseline that never reaches 0.8.
std::vector<dp::RunRecord> comparisonRuns()
{
    dp::RunRecord baseline =
            madeRun("one \"device\", lenet", "lenet", 1, {10, 10, 10}, {0.5, 0.75, 0.85});
    dp::RunRecord twoDevices = madeRun("two", "lenet", 2, {6, 6, 6}, {0.6, 0.81, 0.86});
    twoDevices.config.batch_size = 512;
    twoDevices.config.lr = 0.4f;
    dp::RunRecord otherModel = madeRun("narrow", "resnet18-narrow", 2, {4, 5}, {0.3, 0.4});
    otherModel.status = dp::RunStatus::stopped;
    return {baseline, twoDevices, otherModel};
}

// A 2-device run at batch 128 and lr 0.4 with two fair baselines: a
// 1-device run at half of both (weak scaling), one at the same (strong).
std::tuple<dp::RunRecord, dp::RunRecord, dp::RunRecord> scaledAndIdenticalBaselines()
{
    dp::RunRecord scaled = madeRun("scaled", "lenet", 1, {10, 10}, {0.5, 0.8});
    scaled.config.batch_size = 64;
    scaled.config.lr = 0.2f;
    dp::RunRecord identical = madeRun("identical", "lenet", 1, {7, 7}, {0.5, 0.8});
    dp::RunRecord two = madeRun("two", "lenet", 2, {6, 6}, {0.5, 0.8});
    for (dp::RunRecord* run : {&identical, &two}) {
        run->config.batch_size = 128;
        run->config.lr = 0.4f;
    }
    return {scaled, identical, two};
}

// RFC 4180: fields separated by commas, quoted fields may hold commas,
// doubled quotes and line breaks, records end with CRLF.
QList<QStringList> parseCsv(const QByteArray& csv)
{
    QList<QStringList> records;
    QStringList record;
    QByteArray field;
    bool quoted = false;
    // The byte-order mark before the header is no part of it.
    const qsizetype start = csv.startsWith("\xEF\xBB\xBF") ? 3 : 0;
    for (qsizetype i = start; i < csv.size(); ++i) {
        const char c = csv[i];
        if (quoted) {
            if (c == '"' && i + 1 < csv.size() && csv[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            record << QString::fromUtf8(field);
            field.clear();
        } else if (c == '\r' && i + 1 < csv.size() && csv[i + 1] == '\n') {
            record << QString::fromUtf8(field);
            field.clear();
            records << record;
            record.clear();
            ++i;
        } else {
            field += c;
        }
    }
    return records;
}

QString errorOf(const std::function<void()>& action)
{
    try {
        action();
    } catch (const dp::Error& error) {
        return QString::fromStdString(error.what());
    }
    return QString();
}

#define VERIFY_ONE_LINE_ERROR(message, expected)                                                   \
    do {                                                                                           \
        const QString text = (message);                                                            \
        QVERIFY2(!text.isEmpty(), "no dp::Error thrown");                                          \
        QVERIFY2(!text.contains(QLatin1Char('\n')), qPrintable(text));                             \
        QVERIFY2(text.contains(expected), qPrintable(text));                                       \
    } while (false)

// Another program's write lock on the history at `path`, held for this
// object's lifetime (a second connection, so this thread can hold it).
class HistoryLock
{
public:
    explicit HistoryLock(const QString& path)
    {
        QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), kName);
        database.setDatabaseName(path);
        database.open();
        QSqlQuery(database).exec(QStringLiteral("BEGIN EXCLUSIVE"));
    }
    ~HistoryLock()
    {
        {
            QSqlDatabase database = QSqlDatabase::database(kName);
            QSqlQuery(database).exec(QStringLiteral("ROLLBACK"));
            database.close();
        }
        QSqlDatabase::removeDatabase(kName);
    }

private:
    static constexpr auto kName = "history_lock";
};

} // namespace

class TestRunHistory : public QObject
{
    Q_OBJECT

private slots:
    // A fresh folder for each test, never the user's data folder.
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void historyKeepsEveryField()
    {
        const dp::RunRecord record = everyFieldRecord();
        RunHistory history(path("runs.sqlite"));
        history.save(record);
        const std::optional<dp::RunRecord> stored = history.run(record.id);
        QVERIFY(stored);
        compareRecords(*stored, record);
        QCOMPARE(history.runs().size(), std::size_t(1));
        compareRecords(history.runs().front(), record);
        QVERIFY(!history.run("no such run"));
    }

    // Issue 43: under a decimal-comma locale (the process's, as Qt sets it
    // from LC_ALL) the history stored lr 0.05, warm-up 0.5 and bucket 0.5 MB
    // as 0 and a 30.5 s timeout as 30 (std::stod of "0.05" reads "0"), and
    // every later launch labelled the run "lr 0". tr_TR too has a decimal comma.
    void historyKeepsDecimalsUnderADecimalCommaLocale_data()
    {
        QTest::addColumn<QByteArray>("locale");
        QTest::newRow("de_DE") << QByteArray("de_DE.UTF-8");
        QTest::newRow("tr_TR") << QByteArray("tr_TR.UTF-8");
    }

    void historyKeepsDecimalsUnderADecimalCommaLocale()
    {
        QFETCH(QByteArray, locale);
        SET_PROCESS_LOCALE(locale.constData());
        dp::RunRecord record = everyFieldRecord();
        record.config.lr = 0.05f;
        record.config.warmup_epochs = 0.5;
        record.config.bucket_mb = 0.5;
        record.config.collective_timeout_s = 30.5;
        RunHistory(path("runs.sqlite")).save(record);

        const std::optional<dp::RunRecord> stored = RunHistory(path("runs.sqlite")).run(record.id);
        QVERIFY(stored);
        compareRecords(*stored, record);
        QVERIFY2(QString::fromStdString(stored->settings_label()).contains(QStringLiteral(" · lr 0.05")),
                 stored->settings_label().c_str());
        // As sqlite3 reads the file: numbers, not their text.
        withConnection(path("runs.sqlite"), [&](QSqlDatabase& db) {
            QSqlQuery query(QStringLiteral("SELECT lr, warmup_epochs, bucket_mb, collective_timeout_s FROM runs"), db);
            QVERIFY(query.next());
            QCOMPARE(query.value(0).toDouble(), double(0.05f));
            QCOMPARE(query.value(1).toDouble(), 0.5);
            QCOMPARE(query.value(2).toDouble(), 0.5);
            QCOMPARE(query.value(3).toDouble(), 30.5);
        });
    }

    void saveReplacesTheRunWithTheSameId()
    {
        RunHistory history(path("runs.sqlite"));
        dp::RunRecord later = madeRun("later", "lenet", 1, {1, 2}, {0.5, 0.6});
        later.started_at = "2026-05-01T10:00:00Z";
        later.status = dp::RunStatus::running;
        dp::RunRecord earlier = madeRun("earlier", "lenet", 2, {3}, {0.7});
        earlier.started_at = "2026-05-01T09:00:00Z";
        history.save(later);
        history.save(earlier);

        // The run saves again after its third epoch, then finishes.
        later.epochs.push_back({3, 0.4, 0.8, 0.81, 2.5});
        history.save(later);
        later.status = dp::RunStatus::finished;
        history.save(later);

        const std::vector<dp::RunRecord> runs = history.runs();
        QCOMPARE(runs.size(), std::size_t(2));
        compareRecords(runs[0], earlier);  // oldest first
        compareRecords(runs[1], later);

        // Fewer epochs than stored (a run restarted under its id) leaves none behind.
        later.epochs.resize(1);
        history.save(later);
        compareRecords(*history.run("later"), later);
    }

    // Another program holding the history past its busy timeout (5 s) as a
    // run ends: the end kept trying lands once the lock is gone, so the row
    // does not stay "running" with the epochs of an earlier write. Without
    // patience (the workbench's GUI thread) the failure is reported instead.
    void runEndLandsOnceTheHistoryIsFree()
    {
        RunHistory history(path("runs.sqlite"));
        dp::RunRecord record = madeRun("locked", "lenet", 1, {1}, {0.5});
        record.status = dp::RunStatus::running;
        QStringList errors;
        HistorySink impatient(history, [&](const std::string& what) { errors << QString::fromStdString(what); },
                              std::chrono::milliseconds(0));
        impatient.write(record);  // the run's start and first epoch, held

        std::atomic<bool> locked{false};
        std::thread locker([&] {
            {
                QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"),
                                                                  QStringLiteral("locker"));
                database.setDatabaseName(path("runs.sqlite"));
                QVERIFY(database.open());
                QSqlQuery query(database);
                QVERIFY(query.exec(QStringLiteral("BEGIN EXCLUSIVE")));
                locked = true;
                std::this_thread::sleep_for(std::chrono::milliseconds(6500));
                QVERIFY(query.exec(QStringLiteral("ROLLBACK")));
            }
            QSqlDatabase::removeDatabase(QStringLiteral("locker"));
        });
        while (!locked)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));

        record.epochs.push_back({2, 0.4, 0.6, 0.61, 1.5});
        record.status = dp::RunStatus::finished;
        impatient.write(record);  // fails after the busy timeout
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].contains(QStringLiteral("database is locked")) &&
                     errors[0].contains(QStringLiteral("the history shows the run as it was before its end")),
                 qPrintable(errors[0]));

        HistorySink patient(history, [&](const std::string& what) { errors << QString::fromStdString(what); });
        patient.write(record);
        locker.join();
        QCOMPARE(errors.size(), 1);  // nothing more to report
        compareRecords(*history.run("locked"), record);
    }

    // 43.8: a run whose every write failed (the data folder full from its
    // start) ended saying "the history shows the run as it was before its
    // end", though the history never held it.
    void aFailedEndSaysTheHistoryNeverHeldTheRun()
    {
        const QString folder = path("full");
        QVERIFY(QDir().mkpath(folder));
        RunHistory history(folder + QStringLiteral("/runs.sqlite"));
        // The folder made unwritable under the open database, as a full disk
        // is (root writes where permissions forbid): moved away, a file in its place.
        QVERIFY(QDir().rename(folder, folder + QStringLiteral("-moved")));
        QFile blocker(folder);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();

        dp::RunRecord record = madeRun("unkept", "lenet", 1, {1}, {0.5});
        record.status = dp::RunStatus::running;
        QStringList errors;
        HistorySink sink(history, [&](const std::string& what) { errors << QString::fromStdString(what); },
                         std::chrono::milliseconds(0));
        sink.write(record);
        record.status = dp::RunStatus::finished;
        sink.write(record);
        QCOMPARE(errors.size(), 2);
        QVERIFY2(errors[1].contains(QStringLiteral("the history does not hold the run"))
                         && !errors[1].contains(QStringLiteral("as it was before its end")),
                 qPrintable(errors[1]));
    }

    // D31: while another program held the lock, each epoch's write blocked
    // training for the busy timeout (5 s) and warned that the history did
    // not keep the run. An epoch's write now tries once, quietly: the next
    // write carries the whole record again.
    void epochWritesNeverWaitForALock()
    {
        RunHistory history(path("runs.sqlite"));
        dp::RunRecord record = madeRun("epochs", "lenet", 1, {1}, {0.5});
        record.status = dp::RunStatus::running;
        history.save(record);
        QStringList errors;
        HistorySink sink(history, [&](const std::string& what) { errors << QString::fromStdString(what); });
        record.epochs.push_back({2, 0.4, 0.6, 0.61, 1.5});
        {
            const HistoryLock lock(path("runs.sqlite"));
            sink.write(record);  // locked: no wait, nothing reported
        }
        QCOMPARE(errors, QStringList());
        QCOMPARE(history.run("epochs")->epochs.size(), std::size_t(1));
        sink.write(record);
        QCOMPARE(history.run("epochs")->epochs.size(), std::size_t(2));
    }

    // D31: opening the history took the write lock: while another program
    // held it, dp-train's start waited 5 s, then ran without a history.
    // Opening now only reads, and under an exclusive lock leaves the check
    // to the first write, which lands once the lock is gone.
    void openingNeverWaitsForALock()
    {
        RunHistory(path("runs.sqlite")).save(madeRun("first", "lenet", 1, {1}, {0.5}));
        std::optional<RunHistory> history;
        {
            const HistoryLock lock(path("runs.sqlite"));
            history.emplace(path("runs.sqlite"));
        }
        history->save(madeRun("second", "lenet", 1, {1}, {0.5}));
        QCOMPARE(history->runs().size(), std::size_t(2));
    }

    // D8: SIGTERM did not end the end's wait for a locked history: the wait
    // now asks `stop_waiting` between tries and gives up when it says so.
    void theEndsWaitForALockEndsWhenAsked()
    {
        RunHistory history(path("runs.sqlite"));
        dp::RunRecord record = madeRun("ending", "lenet", 1, {1}, {0.5});
        QStringList errors;
        int asked = 0;
        HistorySink sink(history, [&](const std::string& what) { errors << QString::fromStdString(what); },
                         std::chrono::seconds(60), [&] { return ++asked == 2; });
        const HistoryLock lock(path("runs.sqlite"));
        sink.write(record);
        QCOMPARE(asked, 2);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].contains(QStringLiteral("database is locked")), qPrintable(errors[0]));
    }

    // D8: a read-only or full history made every run's end retry for 60 s,
    // though only a lock can clear: any other failure is reported at once.
    void failuresThatCannotClearAreNotRetried()
    {
        RunHistory history(path("runs.sqlite"));
        history.save(madeRun("before", "lenet", 1, {1}, {0.5}));
        writeFile(path("runs.sqlite"), QByteArray(8192, 'x'));  // damaged under the open connection
        QStringList errors;
        int asked = 0;
        HistorySink sink(history, [&](const std::string& what) { errors << QString::fromStdString(what); },
                         std::chrono::seconds(60), [&] { return ++asked > 0; });
        sink.write(madeRun("ended", "lenet", 1, {1}, {0.5}));
        QCOMPARE(asked, 0);  // never waited for another try
        QCOMPARE(errors.size(), 1);
        QVERIFY2(!errors[0].contains(QStringLiteral("locked")), qPrintable(errors[0]));
    }

    // D33: a runs.sqlite linked to a device or pipe made SQLite write there
    // and create "<device>-journal" beside it: refused before SQLite opens it.
    void aHistoryThatIsNotAFileIsRefused()
    {
        const QString fifo = path("pipe");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0644), 0);
        QVERIFY(QFile::link(fifo, path("runs.sqlite")));
        const QString error = errorOf([&] { RunHistory history(path("runs.sqlite")); });
        VERIFY_ONE_LINE_ERROR(error, QStringLiteral("is a named pipe, not a database file"));
        QVERIFY(!QFile::exists(fifo + QStringLiteral("-journal")));
        QVERIFY(QFile::link(QStringLiteral("/dev/null"), path("null.sqlite")));
        VERIFY_ONE_LINE_ERROR(errorOf([&] { RunHistory history(path("null.sqlite")); }),
                              QStringLiteral("is a character device"));
    }

    // D18: File > Import of a link to /dev/zero read without bound; of a FIFO
    // it hung. Both are refused at once, as every input is.
    void importRefusesPipesAndDevices()
    {
        const QString fifo = path("record.json");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0644), 0);
        VERIFY_ONE_LINE_ERROR(errorOf([&] { readRecordFile(fifo); }), QStringLiteral("not a regular file"));
        VERIFY_ONE_LINE_ERROR(errorOf([&] { readRecordFile(QStringLiteral("/dev/zero")); }),
                              QStringLiteral("not a regular file"));
    }

    void removeDeletesTheRunAndItsEpochs()
    {
        const QString file = path("runs.sqlite");
        RunHistory history(file);
        history.save(madeRun("kept", "lenet", 1, {1, 1}, {0.5, 0.6}));
        history.save(madeRun("removed", "lenet", 2, {1, 1, 1}, {0.5, 0.6, 0.7}));
        history.remove("removed");
        history.remove("never saved");
        QVERIFY(!history.run("removed"));
        QCOMPARE(history.runs().size(), std::size_t(1));
        QCOMPARE(history.runs().front().id, std::string("kept"));
        QCOMPARE(epochRowsIn(file), 2);
    }

    // An import of many files and a deletion of many runs are one
    // transaction each: all of them land (or go), with their epochs.
    void manyRunsSaveAndRemoveAtOnce()
    {
        const QString file = path("runs.sqlite");
        RunHistory history(file);
        std::vector<dp::RunRecord> runs;
        for (int i = 0; i < 50; ++i)
            runs.push_back(madeRun("run-" + std::to_string(i), "lenet", 1 + i % 2, {1, 1}, {0.5, 0.6}));
        history.save(runs);
        QCOMPARE(history.runs().size(), std::size_t(50));
        QCOMPARE(epochRowsIn(file), 100);
        std::vector<std::string> doomed;
        for (int i = 0; i < 50; i += 2)
            doomed.push_back("run-" + std::to_string(i));
        doomed.push_back("never saved");
        history.remove(doomed);
        const std::vector<dp::RunRecord> left = history.runs();
        QCOMPARE(left.size(), std::size_t(25));
        for (const dp::RunRecord& run : left)
            QVERIFY2(std::stoi(run.id.substr(4)) % 2 == 1, run.id.c_str());
        QCOMPARE(epochRowsIn(file), 50);
    }

    // A batch that cannot be saved whole saves none of it: the runs table
    // never shows an import that the history kept only part of. (A trigger
    // refuses the second run, as a full disk would.)
    void aBatchThatFailsSavesNothing()
    {
        RunHistory history(path("runs.sqlite"));
        history.save(madeRun("before", "lenet", 1, {1}, {0.5}));
        {
            QSqlDatabase refuser = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("refuser"));
            refuser.setDatabaseName(path("runs.sqlite"));
            QVERIFY(refuser.open());
            QVERIFY(QSqlQuery(refuser).exec(QStringLiteral(
                    "CREATE TRIGGER refuse BEFORE INSERT ON runs WHEN NEW.id = 'refused' "
                    "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")));
            refuser.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("refuser"));
        const QString error = errorOf([&] {
            history.save({madeRun("first", "lenet", 1, {1}, {0.5}), madeRun("refused", "lenet", 1, {1}, {0.5})});
        });
        QVERIFY2(error.contains(QStringLiteral("refused by the test")), qPrintable(error));
        const std::vector<dp::RunRecord> left = history.runs();
        QCOMPARE(left.size(), std::size_t(1));
        QCOMPARE(left.front().id, std::string("before"));
    }

    void historySurvivesReopening()
    {
        const QString file = path("data/nested/runs.sqlite");  // folders are created
        const dp::RunRecord record = everyFieldRecord();
        {
            RunHistory history(file);
            history.save(record);
        }
        RunHistory reopened(file);
        QCOMPARE(reopened.runs().size(), std::size_t(1));
        compareRecords(reopened.runs().front(), record);

        // The workbench and a dp-train run can hold the same file at once.
        RunHistory second(file);
        second.remove(record.id);
        QVERIFY(reopened.runs().empty());
    }

    void foreignFilesAreRefused()
    {
        const QString garbage = path("garbage.sqlite");
        writeFile(garbage, QByteArray(4096, 'x'));
        const QString garbageError = errorOf([&] { RunHistory history(garbage); });
        VERIFY_ONE_LINE_ERROR(garbageError, garbage);
        VERIFY_ONE_LINE_ERROR(garbageError, QStringLiteral("not a DP Workbench database"));

        const QString otherApp = path("other.sqlite");
        {
            QSqlDatabase db =
                    QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("other"));
            db.setDatabaseName(otherApp);
            QVERIFY(db.open());
            QVERIFY(QSqlQuery(db).exec(QStringLiteral("CREATE TABLE notes (text TEXT)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("other"));
        const QString otherError = errorOf([&] { RunHistory history(otherApp); });
        VERIFY_ONE_LINE_ERROR(otherError, otherApp);
        VERIFY_ONE_LINE_ERROR(otherError, QStringLiteral("not a DP Workbench database"));

        const QString newer = path("newer.sqlite");
        RunHistory(newer).save(everyFieldRecord());
        setUserVersion(newer, 3);
        VERIFY_ONE_LINE_ERROR(errorOf([&] { RunHistory history(newer); }),
                              QStringLiteral("schema version 3"));

        VERIFY_ONE_LINE_ERROR(errorOf([&] { RunHistory history(m_dir->path()); }), m_dir->path());

        // A refused file leaves no connection behind: the same path opens once fixed.
        QFile::remove(garbage);
        RunHistory fixed(garbage);
        QVERIFY(fixed.runs().empty());
    }

    // A history written by the previous version (schema 1: no comparison
    // group, no determinism flag) opens, upgraded in place, its runs intact.
    void olderHistoryIsUpgraded()
    {
        const QString file = path("v1.sqlite");
        dp::RunRecord record = everyFieldRecord();
        saveThenChange(file, record,
                       {QStringLiteral("ALTER TABLE runs DROP COLUMN comparison_group"),
                        QStringLiteral("ALTER TABLE runs DROP COLUMN deterministic"),
                        QStringLiteral("ALTER TABLE epochs DROP COLUMN parameter_drift"),
                        QStringLiteral("ALTER TABLE epochs DROP COLUMN test_loss"),
                        QStringLiteral("ALTER TABLE epochs DROP COLUMN device_cpu")});
        setUserVersion(file, 1);
        dp::RunRecord asSchema1 = record;  // what a schema 1 run reads as
        asSchema1.comparison_group.clear();
        asSchema1.deterministic = true;
        for (dp::EpochMetrics& epoch : asSchema1.epochs) {
            epoch.parameter_drift = std::numeric_limits<double>::quiet_NaN();
            epoch.test_loss = std::numeric_limits<double>::quiet_NaN();
            epoch.device_cpu.clear();  // issue 42: not measured before
        }
        record.comparison_group = "group";
        expectUpgraded(file, asSchema1, record);
    }

    // A history of this schema from before step timings were kept (no
    // steps or step_totals columns) opens with its runs, which read as
    // untimed, and keeps the timings of the runs saved from then on.
    void historyFromBeforeStepTimingsOpens()
    {
        const auto untimed = [](dp::RunRecord& run) { run.steps = 0, run.step_totals.clear(); };
        expectRunColumnsAdded(QStringLiteral("untimed.sqlite"), {QStringLiteral("step_totals"), QStringLiteral("steps")}, untimed);
    }

    // A history of schema 2 from before the test loss was kept (no
    // test_loss column) opens, its epochs' test loss NaN, gains the column,
    // and keeps the test loss of runs saved from then on.
    void historyFromBeforeTestLossGainsTheColumn()
    {
        const QString file = path("no-test-loss.sqlite");
        dp::RunRecord record = everyFieldRecord();
        saveThenChange(file, record, {QStringLiteral("ALTER TABLE epochs DROP COLUMN test_loss")});
        QVERIFY(!columnsIn(file, QStringLiteral("epochs")).contains(QStringLiteral("test_loss")));
        dp::RunRecord withoutTestLoss = record;
        for (dp::EpochMetrics& epoch : withoutTestLoss.epochs)
            epoch.test_loss = std::numeric_limits<double>::quiet_NaN();
        expectUpgraded(file, withoutTestLoss, record);
        QVERIFY(columnsIn(file, QStringLiteral("epochs")).contains(QStringLiteral("test_loss")));
        QCOMPARE(RunHistory(file).run(record.id)->epochs[0].test_loss, record.epochs[0].test_loss);
    }

    // Issue 42: a history from before the loss per batch was kept (no
    // batch_losses column) opens, its runs drawing a point per epoch, gains
    // the column, and keeps the per-batch loss of runs saved from then on.
    void historyFromBeforeBatchLossesGainsTheColumn()
    {
        expectRunColumnsAdded(QStringLiteral("no-batch-losses.sqlite"), {QStringLiteral("batch_losses")},
                              [](dp::RunRecord& run) { run.batch_losses.clear(); });
    }

    // Issue 42: a history from before notes and tags opens with none.
    void historyFromBeforeNotesAndTagsGainsTheColumns()
    {
        expectRunColumnsAdded(QStringLiteral("no-notes.sqlite"), {QStringLiteral("notes"), QStringLiteral("tags")},
                              [](dp::RunRecord& run) { run.notes.clear(), run.tags.clear(); });
    }

    // A batch_losses cell this build cannot read loses the curve, not the run.
    void unreadableBatchLossesReadAsNone()
    {
        const QString file = path("runs.sqlite");
        dp::RunRecord record = everyFieldRecord();
        saveThenChange(file, record, {QStringLiteral("UPDATE runs SET batch_losses = '[[1, 2]]'")});
        const dp::RunRecord read = *RunHistory(file).run(record.id);
        QVERIFY(read.batch_losses.empty());
        QCOMPARE(read.epochs.size(), record.epochs.size());
    }

    // A history from before the process was kept (no pid or host columns)
    // opens, its runs naming no process, and keeps it for runs saved since.
    void historyFromBeforeProcessesGainsTheColumns()
    {
        const auto withoutProcess = [](dp::RunRecord& run) { run.pid = 0, run.host.clear(); };
        expectRunColumnsAdded(QStringLiteral("no-process.sqlite"), {QStringLiteral("pid"), QStringLiteral("host")}, withoutProcess);
        dp::RunRecord older = everyFieldRecord();
        withoutProcess(older);
        QCOMPARE(dp::run_process(older), dp::RunProcess::unknown);
    }

    // Issue 43 item 7: a window read the history once, so dp-train's run
    // beside it stayed as first read. changedRuns() gives another program's
    // new runs, its running run's epochs and its end, then lets it go.
    void changedRunsFollowAnotherProgramsRun()
    {
        const QString file = path("runs.sqlite");
        RunHistory window(file), trainer(file);
        dp::RunRecord old = madeRun("old", "lenet", 1, {10}, {0.5});
        trainer.save(old);
        QCOMPARE(window.runs().size(), std::size_t(1));
        QVERIFY(window.changedRuns().empty());  // nothing since

        dp::RunRecord training = madeRun("training", "lenet", 2, {6}, {0.5});
        training.status = dp::RunStatus::running;
        trainer.save(training);
        std::vector<dp::RunRecord> changed = window.changedRuns();
        QCOMPARE(changed.size(), std::size_t(1));
        QCOMPARE(changed[0].id, std::string("training"));
        QCOMPARE(changed[0].epochs.size(), std::size_t(1));

        training.epochs.push_back({2, 0.9, 0.6, 0.6, 6});
        trainer.save(training);
        changed = window.changedRuns();
        QCOMPARE(changed.size(), std::size_t(1));
        QCOMPARE(changed[0].epochs.size(), std::size_t(2));

        training.status = dp::RunStatus::finished;
        trainer.save(training);
        changed = window.changedRuns();
        QCOMPARE(changed.size(), std::size_t(1));
        QCOMPARE(changed[0].status, dp::RunStatus::finished);
        QVERIFY(window.changedRuns().empty());  // ended: no longer followed
    }

    // The process of a record said "running": alive while its pid runs
    // here and started before the run; gone once it exited, or when its
    // pid belongs to a later process; not known elsewhere or unnamed.
    void runProcessTellsALiveRunFromAnInterruptedOne()
    {
        dp::RunRecord running = dp::start_run_record(dp::TrainConfig{}, "dp-train");
        QCOMPARE(running.pid, std::int64_t(QCoreApplication::applicationPid()));
        QCOMPARE(running.host, dp::this_host());
        QCOMPARE(dp::run_process(running), dp::RunProcess::alive);

        QProcess exited;
        exited.start(QStringLiteral("true"));
        QVERIFY(exited.waitForStarted());
        const qint64 exitedPid = exited.processId();
        QVERIFY(exited.waitForFinished());  // reaped: the pid is free
        dp::RunRecord killed = running;
        killed.pid = exitedPid;
        QCOMPARE(dp::run_process(killed), dp::RunProcess::gone);

        dp::RunRecord reused = running;  // this process started long after the run
        reused.started_at = "2020-01-01T00:00:00Z";
        QCOMPARE(dp::run_process(reused), dp::RunProcess::gone);

        dp::RunRecord elsewhere = running;
        elsewhere.host = dp::this_host() + "-not";
        QCOMPARE(dp::run_process(elsewhere), dp::RunProcess::elsewhere);

        dp::RunRecord unnamed = running;
        unnamed.pid = 0;
        QCOMPARE(dp::run_process(unnamed), dp::RunProcess::unknown);
    }

    // A step_totals cell this build cannot read loses the timings, not the history.
    void unreadableStepTotalsReadAsNone()
    {
        const QString file = path("runs.sqlite");
        dp::RunRecord record = everyFieldRecord();
        saveThenChange(file, record,
                       {QStringLiteral("UPDATE runs SET step_totals = '[{\"shard\": 1}]'")});
        const dp::RunRecord read = *RunHistory(file).run(record.id);
        QVERIFY(read.step_totals.empty());
        QCOMPARE(read.epochs.size(), record.epochs.size());
    }

    void defaultPathFollowsTheEnvironment()
    {
        const QByteArray saved = qgetenv("DP_WORKBENCH_DATA_DIR");
        qputenv("DP_WORKBENCH_DATA_DIR", m_dir->path().toUtf8());
        QCOMPARE(RunHistory::defaultPath(), m_dir->filePath(QStringLiteral("runs.sqlite")));
        qunsetenv("DP_WORKBENCH_DATA_DIR");
        const QString userPath = RunHistory::defaultPath();
        QVERIFY2(userPath.endsWith(QStringLiteral("/DP Workbench/DP Workbench/runs.sqlite")),
                 qPrintable(userPath));
        // Issue 44: with HOME unset, dp-train kept its history under
        // "/.local/share": the password database's home now, as for a login.
        const QByteArray home = qgetenv("HOME"), dataHome = qgetenv("XDG_DATA_HOME");
        const passwd* user = ::getpwuid(::getuid());
        QVERIFY(user && user->pw_dir);
        const QString inHome = QFile::decodeName(user->pw_dir)
                + QStringLiteral("/.local/share/DP Workbench/DP Workbench/runs.sqlite");
        qunsetenv("HOME");
        qunsetenv("XDG_DATA_HOME");
        const QString withoutHome = RunHistory::defaultPath();
        QCOMPARE(withoutHome, inHome);
        QCOMPARE(withoutHome, QFile::decodeName(dp::history_database_path().c_str()));
        qputenv("HOME", "");
        QCOMPARE(RunHistory::defaultPath(), inHome);
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says; an absolute one is the folder.
        qputenv("XDG_DATA_HOME", "relative/data");
        QCOMPARE(RunHistory::defaultPath(), inHome);
        qputenv("XDG_DATA_HOME", m_dir->path().toUtf8());
        QCOMPARE(RunHistory::defaultPath(), m_dir->filePath(QStringLiteral("DP Workbench/DP Workbench/runs.sqlite")));
        for (const auto& [name, value] : {std::pair{"HOME", home}, std::pair{"XDG_DATA_HOME", dataHome}}) {
            if (value.isNull())
                qunsetenv(name);
            else
                qputenv(name, value);
        }
        qputenv("DP_WORKBENCH_DATA_DIR", saved);
    }

    void importReadsWhatToJsonWrites()
    {
        dp::RunRecord record = everyFieldRecord();
        // JSON has no NaN, and DBL_MAX at to_json's 10 digits rounds past it.
        record.epochs[1].train_loss = 0.25;
        record.epochs[1].seconds = 3600.5;
        record.config.seed = 1234567890123456789ull;
        const dp::RunRecord imported =
                recordFromJson(QByteArray::fromStdString(dp::to_json(record)));
        QCOMPARE(dp::to_json(imported), dp::to_json(record));
        QVERIFY(imported.config.lr == record.config.lr);
        QCOMPARE(imported.config.seed, record.config.seed);
        QCOMPARE(imported.config.devices, record.config.devices);
        QCOMPARE(imported.config.data_dir, record.config.data_dir);
        QCOMPARE(imported.error, record.error);

        const QString file = path("run.json");
        dp::write_run_record(file.toStdString(), record);
        QCOMPARE(dp::to_json(readRecordFile(file)), dp::to_json(record));
    }

    // A record written before step timings were kept still imports, with none.
    void recordWithoutStepTimingsImports()
    {
        dp::RunRecord record = madeRun("old", "lenet", 2, {5, 5}, {0.5, 0.6});
        record.steps = 12;
        record.step_totals = {{64, 0.1, 0.2, 0.3, 0.4, 0.5}, {64, 0.1, 0.2, 0.3, 0.4, 0.5}};
        QByteArray json = QByteArray::fromStdString(dp::to_json(record));
        const qsizetype steps = json.indexOf(",\n  \"steps\"");
        QVERIFY(steps > 0);
        json = json.left(steps) + "\n}\n";  // as version 1 records were before
        QVERIFY(!json.contains("step_totals"));
        const dp::RunRecord imported = recordFromJson(json);
        QCOMPARE(imported.steps, std::int64_t(0));
        QVERIFY(imported.step_totals.empty());
        QCOMPARE(imported.epochs.size(), std::size_t(2));
        // With them, every phase of every device comes back.
        const dp::RunRecord whole = recordFromJson(QByteArray::fromStdString(dp::to_json(record)));
        QCOMPARE(whole.steps, std::int64_t(12));
        QCOMPARE(whole.step_totals.size(), std::size_t(2));
        QCOMPARE(whole.step_totals[1].shard, 64);
        QCOMPARE(whole.step_totals[1].allreduce, 0.4);
        QCOMPARE(whole.step_totals[1].update, 0.5);
    }

    void importRefusesWhatIsNotARecord_data()
    {
        const QByteArray good =
                QByteArray::fromStdString(dp::to_json(madeRun("r", "lenet", 1, {1}, {0.5})));
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("problem");
        QTest::newRow("not JSON") << QByteArray("epoch 1/10: test acc 0.5") << "not JSON";
        QTest::newRow("truncated") << good.left(good.size() / 2) << "not JSON";
        QTest::newRow("empty") << QByteArray() << "not JSON";
        QTest::newRow("array") << QByteArray("[1, 2]") << "not an object";
        QTest::newRow("wrong format")
                << QByteArray(good).replace("dp-workbench run record", "safetensors")
                << "\"format\"";
        QTest::newRow("newer version")
                << QByteArray(good).replace("\"version\": 1", "\"version\": 2") << "version 2";
        QTest::newRow("missing field")
                << QByteArray(good).replace("\"lr\": ", "\"learning_rate\": ")
                << "\"config.lr\" is missing";
        QTest::newRow("mistyped field")
                << QByteArray(good).replace("\"processes\": 1", "\"processes\": \"one\"")
                << "\"processes\" is not a number";
        QTest::newRow("fractional count")
                << QByteArray(good).replace("\"epochs\": 10", "\"epochs\": 2.5")
                << "\"config.epochs\" is not a whole number";
        QTest::newRow("mistyped epoch")
                << QByteArray(good).replace("\"test_acc\": 0.5", "\"test_acc\": null")
                << "\"epochs[0].test_acc\" is not a number";
        dp::RunRecord timed = madeRun("r", "lenet", 1, {1}, {0.5});
        timed.steps = 4;
        timed.step_totals = {{256, 0.5, 1, 2, 0.25, 0.125}};
        const QByteArray goodTimed = QByteArray::fromStdString(dp::to_json(timed));
        QTest::newRow("step phase missing")
                << QByteArray(goodTimed).replace("\"allreduce\": 0.25", "\"all_reduce\": 0.25")
                << "\"step_totals[0].allreduce\" is missing";
        QTest::newRow("negative step phase")
                << QByteArray(goodTimed).replace("\"forward\": 1", "\"forward\": -1")
                << "\"step_totals[0].forward\" is negative";
        QTest::newRow("fractional shard")
                << QByteArray(goodTimed).replace("\"shard\": 256", "\"shard\": 25.6")
                << "\"step_totals[0].shard\" is not a whole number";
        QTest::newRow("step totals not a list")
                << QByteArray(goodTimed).replace("\"step_totals\": [", "\"step_totals\": {\"x\": [")
                                .replace("}]\n}", "}]}\n}")
                << "\"step_totals\" is not an array";
        QTest::newRow("negative steps")
                << QByteArray(goodTimed).replace("\"steps\": 4", "\"steps\": -4")
                << "\"steps\" is negative";
    }

    void importRefusesWhatIsNotARecord()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, problem);
        VERIFY_ONE_LINE_ERROR(errorOf([&] { recordFromJson(json); }), problem);
        const QString file = path("bad.json");
        writeFile(file, json);
        const QString fileError = errorOf([&] { readRecordFile(file); });
        VERIFY_ONE_LINE_ERROR(fileError, file);
        VERIFY_ONE_LINE_ERROR(fileError, problem);
    }

    void importNamesAMissingFile()
    {
        const QString missing = path("missing.json");
        VERIFY_ONE_LINE_ERROR(errorOf([&] { readRecordFile(missing); }), missing);
    }

    // Records whose fields are each of the right type but out of what a run
    // can write entered the history (issue 32, D16); they are refused by
    // dp-train's own rules for its settings, and the record's own ranges.
    void importRefusesRecordsOutOfRange_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("problem");
        const dp::RunRecord good = madeRun("r", "lenet", 2, {1, 1}, {0.5, 0.6});
        const auto with = [&](const std::function<void(dp::RunRecord&)>& change) {
            dp::RunRecord record = good;
            change(record);
            return QByteArray::fromStdString(dp::to_json(record));
        };
        QTest::newRow("batch 0") << with([](dp::RunRecord& r) { r.config.batch_size = 0; })
                                 << "\"config.batch_size\" must be positive (got 0)";
        QTest::newRow("batch -5") << with([](dp::RunRecord& r) { r.config.batch_size = -5; })
                                  << "\"config.batch_size\" must be positive (got -5)";
        QTest::newRow("lr -1") << with([](dp::RunRecord& r) { r.config.lr = -1; })
                               << "\"config.lr\" must be a positive number (got -1)";
        QTest::newRow("epochs -1") << with([](dp::RunRecord& r) { r.config.epochs = -1; })
                                   << "\"config.epochs\" must be 0 or more (got -1)";
        QTest::newRow("processes 0") << with([](dp::RunRecord& r) { r.processes = 0; })
                                     << "\"processes\" must be between 1 and the 2 devices listed (got 0)";
        QTest::newRow("processes 2^31-1")
                << with([](dp::RunRecord& r) { r.processes = 2147483647; })
                << "\"processes\" must be between 1 and the 2 devices listed (got 2147483647)";
        QTest::newRow("test_acc 5") << with([](dp::RunRecord& r) { r.epochs[1].test_acc = 5; })
                                    << "\"epochs[1].test_acc\" must be between 0 and 1 (got 5)";
        QTest::newRow("seconds -5") << with([](dp::RunRecord& r) { r.epochs[0].seconds = -5; })
                                    << "\"epochs[0].seconds\" must be between 0 and 31536000 (got -5)";
        QTest::newRow("unknown model") << with([](dp::RunRecord& r) { r.config.model = "bogus"; })
                                       << "unknown model 'bogus'";
        QTest::newRow("unknown data set") << with([](dp::RunRecord& r) { r.config.dataset = "cifar"; })
                                          << "unknown dataset 'cifar'";
        QTest::newRow("no devices") << with([](dp::RunRecord& r) { r.config.devices.clear(); })
                                    << "\"config.devices\" is empty";
        QTest::newRow("long name")
                << with([](dp::RunRecord& r) { r.name = std::string(5 << 20, 'x'); })
                << "\"name\" is 5242880 characters long";
        QTest::newRow("epoch past the run's")
                << with([](dp::RunRecord& r) { r.epochs[1].epoch = 11; })
                << "\"epochs[1].epoch\" must be above the epoch before it (1) and at most the run's 10 "
                   "epochs (got 11)";
        QTest::newRow("test_acc just past 1")
                << with([](dp::RunRecord& r) { r.epochs[0].test_acc = 1.0000001; })
                << "\"epochs[0].test_acc\" must be between 0 and 1 (got 1.0000001)";
        QTest::newRow("name of two lines") << with([](dp::RunRecord& r) { r.name = "two\nlines"; })
                                           << "a run's name is one line";
        // Issue 44: out-of-range numbers and impossible times came in.
        QTest::newRow("1e300 s an epoch") << with([](dp::RunRecord& r) { r.epochs[0].seconds = 1e300; })
                                          << "\"epochs[0].seconds\" must be between 0 and 31536000 (got 1e+300)";
        QTest::newRow("started 9999-99-99")
                << with([](dp::RunRecord& r) { r.started_at = "9999-99-99T99:99:99Z"; })
                << "\"started_at\" is not a time as a run writes it, a real date and time of the form "
                   "2026-11-22T01:30:00Z (got 9999-99-99T99:99:99Z)";
        QTest::newRow("started on February 29th of 2026")
                << with([](dp::RunRecord& r) { r.started_at = "2026-02-29T10:00:00Z"; })
                << "\"started_at\" is not a time as a run writes it";
        QTest::newRow("started at no time") << with([](dp::RunRecord& r) { r.started_at.clear(); })
                                            << "\"started_at\" is not a time as a run writes it";
        QTest::newRow("other_cores 1e308") << with([](dp::RunRecord& r) { r.other_cores = 1e308; })
                                           << "\"other_cores\" must be -1 (not measured) or between 0 and "
                                              "8192 (got 1e+308)";
        QTest::newRow("usable_cores 100000") << with([](dp::RunRecord& r) { r.usable_cores = 100000; })
                                             << "\"usable_cores\" must be between 0 and 8192 (got 100000)";
        QTest::newRow("steps 1e15") << with([](dp::RunRecord& r) { r.steps = 1'000'000'000'000'000; })
                                    << "\"steps\" must be between 0 and 1e+12 (got 1e+15)";
        QTest::newRow("a step phase of 1e300 s") << with([](dp::RunRecord& r) {
            r.steps = 4;
            r.step_totals.resize(2);
            r.step_totals[1].forward = 1e300;
        }) << "\"step_totals[1].forward\" must be between 0 and 3.1536e+11 (got 1e+300)";
        QTest::newRow("name of 201 characters") << with([](dp::RunRecord& r) { r.name = std::string(201, 'x'); })
                                                << "\"name\" is 201 characters long; a run's name takes at most 200";
        // U+202E RIGHT-TO-LEFT OVERRIDE showed "exe.txt" for "txt.exe".
        QTest::newRow("name with U+202E") << with([](dp::RunRecord& r) { r.name = "run \xE2\x80\xAEtxt.exe"; })
                                          << "\"name\" holds U+202E, a bidirectional control character";
        QTest::newRow("name with U+2067") << with([](dp::RunRecord& r) { r.name = "a\xE2\x81\xA7" "b"; })
                                          << "\"name\" holds U+2067, a bidirectional control character";
        QTest::newRow("name with U+200F") << with([](dp::RunRecord& r) { r.name = "a\xE2\x80\x8F"; })
                                          << "\"name\" holds U+200F, a bidirectional control character";
        QTest::newRow("name with a C1 control") << with([](dp::RunRecord& r) { r.name = "a\xC2\x85" "b"; })
                                                << "a run's name is one line";
        // (450,000 epochs froze the window 17 s; a file that large is refused
        // by its size, importReadsOnlyBoundedRegularFiles.)
        QTest::newRow("10,001 epochs") << with([](dp::RunRecord& r) {
            r.config.epochs = 450000;
            r.epochs.clear();
            for (int epoch = 1; epoch <= dp::kMaxRecordEpochs + 1; ++epoch)
                r.epochs.push_back({epoch, 1.0, 0.5, 0.5, 1.0});
        }) << "\"epochs\" lists 10001 epochs; the workbench takes records of at most 10000";
        QTest::newRow("lr a string") << QByteArray(with([](dp::RunRecord&) {}))
                                                .replace("\"lr\": 0.2", "\"lr\": \"0.2\"")
                                     << "\"config.lr\" is not a number";
        QTest::newRow("version a string") << QByteArray(with([](dp::RunRecord&) {}))
                                                     .replace("\"version\": 1", "\"version\": \"1\"")
                                          << "\"version\" is not a number";
        QTest::newRow("UTF-16") << QByteArray("\xff\xfe") + QByteArray(reinterpret_cast<const char*>(
                                                                  QString::fromUtf8(with([](dp::RunRecord&) {})).utf16()),
                                                          with([](dp::RunRecord&) {}).size() * 2)
                                << "UTF-16 text, not UTF-8";
        QTest::newRow("Latin-1") << QByteArray(with([](dp::RunRecord& r) { r.name = "caf"; }))
                                            .replace("\"caf\"", "\"caf\xe9\"")
                                 << "not UTF-8 text";
    }

    void importRefusesRecordsOutOfRange()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, problem);
        VERIFY_ONE_LINE_ERROR(errorOf([&] { recordFromJson(json); }), problem);
        // The one line quotes no huge value back.
        QVERIFY(errorOf([&] { recordFromJson(json); }).size() < 1000);
    }

    // The edges of those ranges come in: a leap day and a leap second, a
    // name of 200 characters and one in Hebrew (right to left without any
    // control character), a year-long epoch, a machine not measured.
    void importTakesRecordsAtTheEdgesOfTheRanges()
    {
        dp::RunRecord record = madeRun("edges", "lenet", 2, {1, dp::kMaxEpochSeconds}, {0.5, 0.6});
        record.started_at = "2024-02-29T23:59:60Z";
        record.other_cores = -1;
        record.usable_cores = dp::kMaxMachineCores;
        record.steps = dp::kMaxRecordSteps;
        for (const std::string& name : {std::string(dp::kMaxRunNameLength, 'x'),
                                        std::string("\xD7\xA8\xD7\x99\xD7\xA6\xD7\x94 2")}) {
            record.name = name;
            const dp::RunRecord imported = recordFromJson(QByteArray::fromStdString(dp::to_json(record)));
            QCOMPARE(dp::to_json(imported), dp::to_json(record));
        }
    }

    // Issue 41: dp-train --distributed wrote "allreduce": "mpi", which
    // dp-train's settings checks refused, so no mpirun record imported. It
    // now writes the strategy as set; the records written before import.
    void anEarlierMpirunRecordImports()
    {
        dp::RunRecord record = madeRun("mpirun", "lenet", 2, {1, 1}, {0.5, 0.6});
        record.source = "mpirun";
        record.processes = 2;
        record.config.allreduce = dp::AllReduceStrategy::mpi;
        const dp::RunRecord imported = recordFromJson(QByteArray::fromStdString(dp::to_json(record)));
        QCOMPARE(imported.config.allreduce, dp::AllReduceStrategy::mpi);
        QCOMPARE(imported.processes, 2);
    }

    // A record whose run the file left running comes in as interrupted: no
    // process here carries it on (it showed "running" forever).
    void importedRunningRecordIsInterrupted()
    {
        dp::RunRecord record = madeRun("left-running", "lenet", 1, {1}, {0.5});
        record.status = dp::RunStatus::running;
        const QString file = path("running.json");
        dp::write_run_record(file.toStdString(), record);
        QCOMPARE(readRecordFile(file).status, dp::RunStatus::interrupted);
        // A byte-order mark some editors add is no reason to refuse a record.
        writeFile(file, "\xef\xbb\xbf" + QByteArray::fromStdString(dp::to_json(record)));
        QCOMPARE(readRecordFile(file).id, record.id);
    }

    // File > Import of a link to /dev/zero read until memory ran out, and
    // --import of a FIFO waited forever for a writer: only regular files of
    // at most kMaxRunRecordBytes are read.
    void importReadsOnlyBoundedRegularFiles()
    {
        const QString fifo = path("fifo.json");
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        VERIFY_ONE_LINE_ERROR(errorOf([&] { readRecordFile(fifo); }), "not a regular file");
        const QString zero = path("zero.json");
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), zero));
        VERIFY_ONE_LINE_ERROR(errorOf([&] { readRecordFile(zero); }), "not a regular file");
        VERIFY_ONE_LINE_ERROR(errorOf([&] { readRecordFile(m_dir->path()); }), "not a regular file");
        const QString huge = path("huge.json");
        {
            QFile file(huge);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QVERIFY(file.resize(dp::kMaxRunRecordBytes + 1));  // sparse: nothing written
        }
        VERIFY_ONE_LINE_ERROR(errorOf([&] { readRecordFile(huge); }), "MiB a file of its kind may hold");
    }

    // One row out of range (epochs 99999999999, lr 1e300) emptied the whole
    // Runs table: it is left out, named, and the other runs read as ever.
    void unreadableRowIsLeftOutAndNamed_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("column");
        QTest::newRow("epochs") << "UPDATE runs SET epochs = 99999999999 WHERE id = 'bad'"
                                << "its epochs cannot be read";
        QTest::newRow("lr") << "UPDATE runs SET lr = 1e300 WHERE id = 'bad'" << "its lr cannot be read";
    }
    void unreadableRowIsLeftOutAndNamed()
    {
        QFETCH(QString, change);
        QFETCH(QString, column);
        const QString file = path("runs.sqlite");
        RunHistory(file).save(madeRun("good", "lenet", 1, {1, 2}, {0.5, 0.6}));
        saveThenChange(file, madeRun("bad", "lenet", 2, {1}, {0.5}), {change});
        RunHistory history(file);
        std::vector<std::string> skipped;
        const std::vector<dp::RunRecord> runs = history.runs(&skipped);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs.front().id, std::string("good"));
        QCOMPARE(runs.front().epochs.size(), std::size_t(2));  // the bad run's epochs stay out too
        QCOMPARE(skipped.size(), std::size_t(1));
        VERIFY_ONE_LINE_ERROR(QString::fromStdString(skipped.front()), file);
        VERIFY_ONE_LINE_ERROR(QString::fromStdString(skipped.front()), "run bad left out: " + column);
        QVERIFY(!history.run("bad"));
    }

    void comparisonFollowsTheBaseline()
    {
        const std::vector<RunComparison> rows = compareRuns(comparisonRuns());
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0].baseline, std::optional<std::size_t>(0));
        QCOMPARE(*rows[0].speedup, 1.0);
        QCOMPARE(*rows[0].secondsToTarget, 30.0);
        QCOMPARE(rows[1].secondsPerEpoch, 6.0);
        QCOMPARE(*rows[1].speedup, 10.0 / 6.0);
        QCOMPARE(*rows[1].efficiency, 10.0 / 6.0 / 2.0);
        QCOMPARE(*rows[1].secondsToTarget, 12.0);
        QVERIFY(!rows[2].baseline && !rows[2].speedup && !rows[2].efficiency);
        QVERIFY(!rows[2].secondsToTarget);
        QCOMPARE(*compareRuns(comparisonRuns(), 0.6)[1].secondsToTarget, 6.0);

        // A 1-device run on other samples is not a baseline.
        std::vector<dp::RunRecord> runs = comparisonRuns();
        runs[0].config.limit_train = 1000;
        QVERIFY(!compareRuns(runs)[1].baseline);
    }

    // Time to 0.8: 30 s on 1 device, 12 s on 2, so 2.5 times sooner (1.67
    // times per epoch: the 2-device run needs fewer epochs too).
    // With a scaled-down and an identical 1-device run both checked, the
    // identical one is the baseline (strong scaling); without it, the scaled
    // one is (weak scaling). Each speedup says which.
    void anIdenticalBaselineIsPreferredOverAScaledOne()
    {
        const auto [scaled, identical, two] = scaledAndIdenticalBaselines();
        const std::vector<RunComparison> both = compareRuns({scaled, identical, two});
        QCOMPARE(both[2].baseline, std::optional<std::size_t>(1));
        QCOMPARE(both[2].scaling, MeasuredScaling::strong);
        QCOMPARE(*both[2].speedup, 7.0 / 6.0);
        QCOMPARE(both[0].scaling, MeasuredScaling::none);  // a baseline of itself
        const std::vector<RunComparison> scaledOnly = compareRuns({scaled, two});
        QCOMPARE(scaledOnly[1].baseline, std::optional<std::size_t>(0));
        QCOMPARE(scaledOnly[1].scaling, MeasuredScaling::weak);
        QCOMPARE(*scaledOnly[1].speedup, 10.0 / 6.0);
    }

    void speedupToTargetComparesTimesToTheTarget()
    {
        const std::vector<RunComparison> rows = compareRuns(comparisonRuns());
        QCOMPARE(*rows[0].speedupToTarget, 1.0);
        QCOMPARE(*rows[1].speedupToTarget, 30.0 / 12.0);
        QVERIFY(!rows[2].speedupToTarget);  // no baseline, never reached 0.8
        // Only a baseline that reached the target gives one.
        std::vector<dp::RunRecord> slow = comparisonRuns();
        slow[0].epochs.back().test_acc = 0.79;
        QVERIFY(!compareRuns(slow)[1].speedupToTarget);
    }

    // The breakdown of an N-device run's gap to the ideal speedup, once both
    // runs of the pair kept their step timings (dp::speedup_gap's arithmetic).
    void comparisonSplitsTheGapOfTimedRuns()
    {
        std::vector<dp::RunRecord> runs = comparisonRuns();
        QVERIFY(!compareRuns(runs)[1].gap);  // records without timings: no breakdown
        runs[0].steps = 30;  // 10 steps an epoch
        runs[0].step_totals = {{7680, 1.5, 9, 18, 0, 1.5}};
        runs[1].steps = 15;  // 5 steps an epoch (twice the batch)
        runs[1].step_totals = {{3840, 1.5, 6, 12, 1.5, 1.5}, {3840, 1.5, 6, 12, 3, 1.5}};
        const std::vector<RunComparison> rows = compareRuns(runs);
        QVERIFY(!rows[0].gap);  // a 1-device run has no gap
        QVERIFY(!rows[2].gap);  // nor a run without a baseline
        QVERIFY(rows[1].gap);
        const dp::SpeedupGap& gap = *rows[1].gap;
        QCOMPARE(gap.devices, 2);
        QCOMPARE(gap.measured, 6.0);
        QCOMPARE(gap.ideal, 5.0);
        double seconds = 0, shares = 0;
        for (const dp::GapPart& part : gap.parts) {
            seconds += part.seconds;
            shares += gap.share(part);
        }
        QVERIFY(std::abs(seconds - gap.gap()) < 1e-9);
        QVERIFY(std::abs(shares - 1) < 1e-9);
        // Per epoch: the least all-reduce wait, 1.5 s over 3 epochs; none on 1 device.
        QCOMPARE(gap.parts[1].short_name, std::string("all-reduce"));
        QVERIFY(std::abs(gap.parts[1].seconds - 0.5) < 1e-12);
    }

    // Speedup compares like with like only: a 2-device run at another batch
    // rule, epoch count or seed gets no baseline, and says why.
    void comparisonOnlyComparesLikeWithLike_data()
    {
        QTest::addColumn<int>("batch");
        QTest::addColumn<float>("lr");
        QTest::addColumn<int>("epochs");
        QTest::addColumn<int>("seed");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("why");  // empty: comparable
        QTest::newRow("same global batch") << 256 << 0.2f << 3 << 0 << "fp32" << "";
        QTest::newRow("scaled batch and lr") << 512 << 0.4f << 3 << 0 << "fp32" << "";
        QTest::newRow("half the batch") << 128 << 0.1f << 3 << 0 << "fp32" << "batch 256 and lr 0.2 there";
        QTest::newRow("batch scaled, lr not") << 512 << 0.2f << 3 << 0 << "fp32" << "batch 256 and lr 0.2 there";
        QTest::newRow("other epochs") << 256 << 0.2f << 5 << 0 << "fp32" << "epochs: 3 there, 5 here";
        QTest::newRow("other seed") << 256 << 0.2f << 3 << 7 << "fp32" << "seed: 0 there, 7 here";
        QTest::newRow("other precision") << 256 << 0.2f << 3 << 0 << "bf16" << "precision: fp32 there, bf16 here";
    }
    void comparisonOnlyComparesLikeWithLike()
    {
        QFETCH(int, batch);
        QFETCH(float, lr);
        QFETCH(int, epochs);
        QFETCH(int, seed);
        QFETCH(QString, precision);
        QFETCH(QString, why);
        dp::RunRecord one = madeRun("one", "lenet", 1, {10, 10, 10}, {0.5, 0.6, 0.7});
        one.config.epochs = 3;
        dp::RunRecord two = madeRun("two", "lenet", 2, {6, 6, 6}, {0.5, 0.6, 0.7});
        two.config.batch_size = batch;
        two.config.lr = lr;
        two.config.epochs = epochs;
        two.config.seed = std::uint64_t(seed);
        two.config.precision = precision.toStdString();
        const RunComparison row = compareRuns({one, two})[1];
        if (why.isEmpty()) {
            QCOMPARE(row.baseline, std::optional<std::size_t>(0));
            QCOMPARE(*row.speedup, 10.0 / 6.0);
        } else {
            QVERIFY(!row.baseline && !row.speedup && !row.efficiency);
            QVERIFY2(QString::fromStdString(row.noBaselineReason).contains(why),
                     row.noBaselineReason.c_str());
        }
    }

    // A straggler (--slow-device) on the baseline's device must be the same
    // one; one on a device the baseline lacks leaves it a fair baseline.
    void comparisonNeedsTheSameStraggler()
    {
        const dp::RunRecord one = madeRun("one", "lenet", 1, {10, 10, 10}, {0.5, 0.6, 0.7});
        dp::RunRecord two = madeRun("two", "lenet", 2, {6, 6, 6}, {0.5, 0.6, 0.7});
        two.config.slow_devices = {"cpu:1=1.5"};
        QCOMPARE(compareRuns({one, two})[1].baseline, std::optional<std::size_t>(0));
        two.config.slow_devices = {"cpu:0=1.5"};
        const RunComparison row = compareRuns({one, two})[1];
        QVERIFY(!row.baseline && !row.speedup);
        QVERIFY2(QString::fromStdString(row.noBaselineReason)
                         .contains("straggler: none there, cpu:0 1.5x slower here"),
                 row.noBaselineReason.c_str());
    }

    // "Compare 1 vs N" pairs stay together: a later, equally valid 1-device
    // run does not take the group's baseline's place, nor the other way round.
    void comparisonGroupsKeepTheirPair()
    {
        dp::RunRecord first = madeRun("first", "lenet", 1, {10, 10, 10}, {0.5, 0.6, 0.7});
        dp::RunRecord grouped = madeRun("grouped one", "lenet", 1, {12, 12, 12}, {0.5, 0.6, 0.7});
        dp::RunRecord pair = madeRun("grouped two", "lenet", 2, {6, 6, 6}, {0.5, 0.6, 0.7});
        grouped.comparison_group = pair.comparison_group = "compare-1";
        const std::vector<RunComparison> rows = compareRuns({first, grouped, pair});
        QCOMPARE(rows[2].baseline, std::optional<std::size_t>(1));
        QCOMPARE(*rows[2].speedup, 12.0 / 6.0);
        // Without the group, the first fair baseline in the list.
        pair.comparison_group.clear();
        QCOMPARE(compareRuns({first, grouped, pair})[2].baseline, std::optional<std::size_t>(0));
    }

    // A comparison repeated 3 times (1, N, 1, N, 1, N in one group): each
    // N-device run pairs with the 1-device run just before it, and every one
    // of them quotes the median and range of the 3 speedups.
    void repeatedComparisonQuotesTheMedianAndRange()
    {
        std::vector<dp::RunRecord> runs;
        const std::vector<std::pair<double, double>> repeats{{10, 6}, {12, 6}, {10, 4}};
        for (std::size_t r = 0; r < repeats.size(); ++r) {
            runs.push_back(madeRun("one " + std::to_string(r), "lenet", 1,
                                   {repeats[r].first, repeats[r].first}, {0.5, 0.6}));
            runs.push_back(madeRun("two " + std::to_string(r), "lenet", 2,
                                   {repeats[r].second, repeats[r].second}, {0.5, 0.6}));
        }
        for (dp::RunRecord& run : runs)
            run.comparison_group = "compare-3";
        const std::vector<RunComparison> rows = compareRuns(runs);
        QCOMPARE(rows[1].baseline, std::optional<std::size_t>(0));
        QCOMPARE(rows[3].baseline, std::optional<std::size_t>(2));
        QCOMPARE(rows[5].baseline, std::optional<std::size_t>(4));
        QCOMPARE(*rows[3].speedup, 2.0);
        for (const std::size_t i : {1, 3, 5}) {
            QVERIFY(rows[i].repeated);
            QCOMPARE(rows[i].repeated->repeats, 3);
            QCOMPARE(rows[i].repeated->median, 2.0);
            QCOMPARE(rows[i].repeated->min, 10.0 / 6.0);
            QCOMPARE(rows[i].repeated->max, 2.5);
        }
        for (const std::size_t i : {0, 2, 4})
            QVERIFY(!rows[i].repeated);  // the baselines
        // One pair alone is not a repeat.
        runs.resize(2);
        QVERIFY(!compareRuns(runs)[1].repeated);
    }

    // The user's baseline (the runs table's "Use as baseline") wins where it
    // is fair, over the identical-settings one compareRuns would choose.
    void aChosenBaselineIsUsedWhereFair()
    {
        const auto [scaled, identical, two] = scaledAndIdenticalBaselines();
        const std::vector<RunComparison> chosen = compareRuns({scaled, identical, two}, 0.8, "scaled");
        QCOMPARE(chosen[2].baseline, std::optional<std::size_t>(0));
        QCOMPARE(chosen[2].scaling, MeasuredScaling::weak);
        // A choice that is no fair baseline (another model) changes nothing.
        dp::RunRecord other = madeRun("other", "resnet18", 1, {5, 5}, {0.5, 0.8});
        const std::vector<RunComparison> unfair =
            compareRuns({scaled, identical, two, other}, 0.8, "other");
        QCOMPARE(unfair[2].baseline, std::optional<std::size_t>(1));
    }

    // 4 CPU devices on a 2-core machine take turns: at most 2 times faster.
    // The comparison knows the ceiling, and the gap puts the cores' share
    // first instead of blaming the all-reduce for it.
    void devicesSharingCoresGetACeilingAndAGapPart()
    {
        dp::RunRecord one = madeRun("one", "lenet", 1, {8, 8}, {0.5, 0.6});
        dp::RunRecord four = madeRun("four", "lenet", 4, {7, 7}, {0.5, 0.6});
        one.usable_cores = four.usable_cores = 2;
        one.steps = 20;  // 10 steps an epoch
        one.step_totals = {{2560, 1, 25, 50, 0, 4}};
        four.steps = 20;
        four.step_totals.assign(4, {640, 2, 10, 20, 30, 4});
        QCOMPARE(four.cpu_cores_used(), 2);
        const RunComparison row = compareRuns({one, four})[1];
        QCOMPARE(row.ceiling, std::optional<double>(2.0));
        QVERIFY(row.gap);
        const dp::SpeedupGap& gap = *row.gap;
        QCOMPARE(gap.parts.front().short_name, std::string("shared cores"));
        // 1 device's 8 s over 2 cores, less the ideal 8 s / 4.
        QVERIFY(std::abs(gap.parts.front().seconds - (4.0 - 2.0)) < 1e-9);
        double seconds = 0;
        for (const dp::GapPart& part : gap.parts)
            seconds += part.seconds;
        QVERIFY(std::abs(seconds - gap.gap()) < 1e-9);
        // With a core each, no ceiling and no such part.
        four.usable_cores = 4;
        const RunComparison ownCores = compareRuns({one, four})[1];
        QVERIFY(!ownCores.ceiling);
        QVERIFY(ownCores.gap->parts.front().short_name != "shared cores");
    }

    void aRunWithoutAnyBaselineSaysWhatOneNeeds()
    {
        dp::RunRecord two = madeRun("two", "lenet", 2, {6, 6}, {0.5, 0.6});
        two.config.batch_size = 128;
        two.config.lr = 0.1f;
        const RunComparison row = compareRuns({two})[0];
        QVERIFY(!row.speedup);
        QVERIFY2(QString::fromStdString(row.noBaselineReason)
                         .contains("batch 128 and lr 0.1, or batch 64 and lr 0.05 (scaled to 2 devices)"),
                 row.noBaselineReason.c_str());
    }

    void runsExportAsCsv()
    {
        const std::vector<dp::RunRecord> runs = comparisonRuns();
        const QList<QStringList> csv = parseCsv(runsToCsv(runs));
        QCOMPARE(csv.size(), 4);
        const QStringList& header = csv[0];
        for (const QStringList& row : csv)
            QCOMPARE(row.size(), header.size());
        const auto cell = [&](int run, const char* column) {
            const qsizetype index = header.indexOf(QLatin1String(column));
            return index < 0 ? QStringLiteral("<no column>") : csv[run + 1][index];
        };
        QCOMPARE(cell(0, "id"), QStringLiteral("one \"device\", lenet"));
        QCOMPARE(cell(1, "label"), QString::fromStdString(runs[1].label()));
        QCOMPARE(cell(1, "devices"), QStringLiteral("cpu:0,cpu:1"));
        QCOMPARE(cell(1, "device_count"), QStringLiteral("2"));
        QCOMPARE(cell(1, "processes"), QStringLiteral("1"));
        QCOMPARE(cell(1, "batch_size"), QStringLiteral("512"));
        QCOMPARE(cell(1, "lr"), QStringLiteral("0.4"));
        QCOMPARE(cell(1, "epochs_done"), QStringLiteral("3"));
        QCOMPARE(cell(1, "seconds_per_epoch"), QStringLiteral("6"));
        QCOMPARE(cell(1, "final_test_acc"), QStringLiteral("0.86"));
        QCOMPARE(cell(1, "baseline_id"), cell(0, "id"));
        QCOMPARE(cell(1, "speedup").toDouble(), 10.0 / 6.0);
        QCOMPARE(cell(1, "efficiency").toDouble(), 10.0 / 6.0 / 2.0);
        QCOMPARE(cell(1, "target_test_acc"), QStringLiteral("0.8"));
        QCOMPARE(cell(1, "seconds_to_target"), QStringLiteral("12"));
        QCOMPARE(cell(1, "speedup_to_target"), QStringLiteral("2.5"));
        QCOMPARE(cell(2, "speedup_to_target"), QString());
        QCOMPARE(header.indexOf(QStringLiteral("step_totals")), qsizetype(-1));  // JSON only
        QCOMPARE(cell(2, "status"), QStringLiteral("stopped"));
        QCOMPARE(cell(2, "speedup"), QString());
        QCOMPARE(cell(2, "seconds_to_target"), QString());
        const qsizetype toTarget = header.indexOf(QStringLiteral("seconds_to_target"));
        QCOMPARE(parseCsv(runsToCsv(runs, 0.6))[2][toTarget], QStringLiteral("6"));
    }

    // The setting columns come from the schema: every setting with a dp-train
    // flag that the run has (not the random data set's sizes for a
    // Fashion-MNIST run, nor paths left empty), under its field name,
    // written as the flag takes it.
    void runsExportListsEverySetting()
    {
        dp::RunRecord run = madeRun("r", "lenet", 2, {6, 6}, {0.5, 0.6});
        run.config.seed = 7;
        run.config.limit_train = 1000;
        run.config.limit_test = 200;
        run.config.allreduce = dp::AllReduceStrategy::naive;
        run.config.epochs = 5;
        run.config.sync_bn = true;
        const QList<QStringList> csv = parseCsv(runsToCsv({run}));
        QCOMPARE(csv.size(), 2);
        const QStringList& header = csv[0];
        for (const dp::ConfigField& field : dp::config_fields()) {
            const qsizetype column = header.indexOf(QLatin1String(field.name));
            const std::string name = field.name;
            const bool listed = field.flag && name != "input_size" && name != "samples"
                    && !dp::field_text(field, run.config).empty();
            QVERIFY2((column >= 0) == listed, field.name);
            if (column >= 0)
                QCOMPARE(csv[1][column], QString::fromStdString(dp::field_text(field, run.config)));
        }
        const auto cell = [&](const char* column) {
            return csv[1].value(header.indexOf(QLatin1String(column)), QStringLiteral("<no column>"));
        };
        QCOMPARE(cell("seed"), QStringLiteral("7"));
        QCOMPARE(cell("limit_train"), QStringLiteral("1000"));
        QCOMPARE(cell("limit_test"), QStringLiteral("200"));
        QCOMPARE(cell("allreduce"), QStringLiteral("naive"));
        QCOMPARE(cell("epochs"), QStringLiteral("5"));  // planned
        QCOMPARE(cell("epochs_done"), QStringLiteral("2"));
        QCOMPARE(cell("sync_bn"), QStringLiteral("true"));
        QCOMPARE(cell("devices"), QStringLiteral("cpu:0,cpu:1"));
        // Plumbing is not a setting of the run.
        QCOMPARE(header.indexOf(QStringLiteral("snapshot_dir")), qsizetype(-1));

        // The largest seed stays exact in both formats.
        run.config.seed = std::numeric_limits<std::uint64_t>::max();
        QCOMPARE(parseCsv(runsToCsv({run}))[1][header.indexOf(QStringLiteral("seed"))],
                 QStringLiteral("18446744073709551615"));
        const QJsonObject json = QJsonDocument::fromJson(runsToJson({run})).array()[0].toObject();
        QCOMPARE(json[QStringLiteral("seed")].toVariant().toString(),
                 QStringLiteral("18446744073709551615"));
        QCOMPARE(json[QStringLiteral("limit_train")].toInt(), 1000);
        QCOMPARE(json[QStringLiteral("sync_bn")].toBool(), true);
        QCOMPARE(json[QStringLiteral("devices")].toArray().size(), 2);
    }

    void runsExportAsJson()
    {
        std::vector<dp::RunRecord> timed = comparisonRuns();
        timed[1].steps = 15;
        timed[1].step_totals = {{3840, 1.5, 6, 12, 1.5, 0.75}, {3840, 1.5, 6, 12, 3, 0.75}};
        QJsonParseError error;
        const QJsonDocument json = QJsonDocument::fromJson(runsToJson(timed), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonArray runs = json.array();
        QCOMPARE(runs.size(), 3);
        const QJsonObject two = runs[1].toObject();
        QCOMPARE(two[QStringLiteral("id")].toString(), QStringLiteral("two"));
        QCOMPARE(two[QStringLiteral("devices")].toArray().size(), 2);
        QCOMPARE(two[QStringLiteral("lr")].toDouble(), 0.4);
        QCOMPARE(two[QStringLiteral("speedup")].toDouble(), 10.0 / 6.0);
        QCOMPARE(two[QStringLiteral("efficiency")].toDouble(), 10.0 / 6.0 / 2.0);
        QCOMPARE(two[QStringLiteral("seconds_to_target")].toDouble(), 12.0);
        QCOMPARE(two[QStringLiteral("speedup_to_target")].toDouble(), 2.5);
        QCOMPARE(two[QStringLiteral("steps")].toInt(), 15);
        const QJsonArray totals = two[QStringLiteral("step_totals")].toArray();
        QCOMPARE(totals.size(), 2);
        QCOMPARE(totals[1].toObject()[QStringLiteral("allreduce")].toDouble(), 3.0);
        QCOMPARE(totals[1].toObject()[QStringLiteral("shard")].toInt(), 3840);
        const QJsonObject narrow = runs[2].toObject();
        QVERIFY(narrow[QStringLiteral("speedup")].isNull());
        QVERIFY(narrow[QStringLiteral("baseline_id")].isNull());
        QVERIFY(narrow[QStringLiteral("seconds_to_target")].isNull());
    }

    void epochsExportAsCsv()
    {
        const QList<QStringList> csv = parseCsv(epochsToCsv(comparisonRuns()));
        QCOMPARE(csv.size(), 1 + 3 + 3 + 2);
        QCOMPARE(csv[0], QStringList({"run_id", "label", "epoch", "train_loss", "train_acc",
                                      "test_acc", "seconds", "cumulative_seconds"}));
        QCOMPARE(csv[1][0], QStringLiteral("one \"device\", lenet"));
        QCOMPARE(csv[6], QStringList({"two", QString::fromStdString(comparisonRuns()[1].label()),
                                      "3", "1", "0.5", "0.86", "6", "18"}));
        QCOMPARE(csv[8][7], QStringLiteral("9"));
    }

    void mpirunCommandReproducesTheConfig()
    {
        QCOMPARE(mpirunCommand(dp::TrainConfig(), 2),
                 QStringLiteral("mpirun -np 2 --hostfile hosts dp-train --distributed "
                                "--model lenet --batch-size 256 --lr 0.2 --epochs 10 --seed 0 "
                                "--record run.json"));

        dp::TrainConfig config;
        config.model = "resnet18-narrow";
        config.batch_size = 512;
        config.lr = 0.1f;
        config.epochs = 3;
        config.seed = 7;
        config.dataset = "mnist-format";
        config.data_dir = "/data/O'Brien's mnist";
        config.limit_train = 1024;
        config.limit_test = 256;
        config.shuffle = false;
        config.allreduce = dp::AllReduceStrategy::naive;
        config.sync_bn = true;
        config.devices = {"cpu:0", "cpu:1"};  // each rank picks its own device
        QCOMPARE(mpirunCommand(config, 4, QStringLiteral("my hosts")),
                 QStringLiteral("mpirun -np 4 --hostfile 'my hosts' dp-train --distributed "
                                "--model resnet18-narrow --batch-size 512 --lr 0.1 --epochs 3 "
                                "--seed 7 --dataset mnist-format "
                                "--data-dir '/data/O'\\''Brien'\\''s mnist' --limit-train 1024 "
                                "--limit-test 256 --no-shuffle --allreduce naive --sync-bn "
                                "--record run.json"));

        dp::TrainConfig random;
        random.dataset = "random";
        random.samples = 1000;
        random.bucket_mb = 0.5;
        QCOMPARE(mpirunCommand(random, 3, QString()),
                 QStringLiteral("mpirun -np 3 dp-train --distributed --model lenet "
                                "--batch-size 256 --lr 0.2 --epochs 10 --seed 0 "
                                "--dataset random --samples 1000 "
                                "--bucket-mb 0.5 --record run.json"));

        // A setting added to the schema alone (weight decay) is passed on too.
        random.weight_decay = 0.0005f;
        QVERIFY2(mpirunCommand(random, 3, QString()).contains(QStringLiteral("--weight-decay 5e-04 ")),
                 qPrintable(mpirunCommand(random, 3, QString())));
    }

    // The dialog's command: lines of at most the width, broken between
    // arguments with continuations, that a shell reads back word for word.
    // What an MPI job cannot run is changed and said: DataParallel (one
    // process) becomes ring, a straggler (one process's device) is left out;
    // dp-train --distributed would refuse either.
    void clusterCommandSaysWhatItChanges()
    {
        dp::TrainConfig config;
        QVERIFY(clusterChanges(config).isEmpty());
        config.allreduce = dp::AllReduceStrategy::dataparallel;
        config.slow_devices = {"cpu:1=1.5"};
        const QString command = mpirunCommand(config, 2);
        // Ring is dp-train's default: no --allreduce at all.
        QVERIFY2(!command.contains(QStringLiteral("--allreduce"))
                     && !command.contains(QStringLiteral("--slow-device")),
                 qPrintable(command));
        const QStringList changes = clusterChanges(config);
        QCOMPARE(changes.size(), 2);
        QVERIFY2(changes[0].contains(QStringLiteral("ring (DDP's) instead")), qPrintable(changes[0]));
        QVERIFY2(changes[1].contains(QStringLiteral("--slow-device cpu:1=1.5")), qPrintable(changes[1]));
    }

    void clusterCommandWrapsOnlyBetweenArguments()
    {
        dp::TrainConfig config;
        config.model = "resnet18-narrow";
        config.data_dir = "/data/O'Brien's \"fashion\" mnist, copy";
        config.limit_train = 1024;
        config.sync_bn = true;
        const QString dpTrain = QStringLiteral("/opt/dp workbench/build/release/app/dp-train");
        const CommandWords words = mpirunWords(config, 4, QStringLiteral("hosts"), dpTrain);
        constexpr int kColumns = 50;
        const QString command = shellCommand(words, kColumns);
        const QStringList lines = command.split(QLatin1Char('\n'));
        QVERIFY2(lines.size() > 3, qPrintable(command));
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QString& line = lines[i];
            QVERIFY2(line.endsWith(QStringLiteral(" \\")) == (i + 1 < lines.size()),
                     qPrintable(line));
            QVERIFY2(i == 0 || line.startsWith(QStringLiteral("  ")), qPrintable(line));
            // Longer only for one argument group alone on its line.
            QVERIFY2(line.size() <= kColumns || line.count(QStringLiteral(" -")) <= 1,
                     qPrintable(line));
        }
        // Every option keeps its value on its line.
        for (const QString& option : {QStringLiteral("--model resnet18-narrow"),
                                      QStringLiteral("--limit-train 1024"),
                                      QStringLiteral("-np 4"), QStringLiteral("--hostfile hosts"),
                                      QStringLiteral("--record run.json")})
            QVERIFY2(std::any_of(lines.begin(), lines.end(),
                                 [&](const QString& line) { return line.contains(option); }),
                     qPrintable(option + QStringLiteral(" split in\n") + command));
        QCOMPARE(command.count(QStringLiteral("dp-train")), 1);
        QCOMPARE(shellCommand(words), mpirunCommand(config, 4, QStringLiteral("hosts"), dpTrain));

        // A shell reads the wrapped command back as the same words.
        CommandWords echoed = words;
        echoed.insert(echoed.begin(), {QStringLiteral("printf"), QStringLiteral("%s\\n")});
        QProcess shell;
        shell.start(QStringLiteral("sh"), {QStringLiteral("-c"), shellCommand(echoed, kColumns)});
        QVERIFY(shell.waitForFinished(10'000));
        QCOMPARE(shell.exitCode(), 0);
        QStringList expected;
        for (const QStringList& group : words)
            expected << group;
        QCOMPARE(QString::fromUtf8(shell.readAllStandardOutput()).split(QLatin1Char('\n'),
                                                                       Qt::SkipEmptyParts),
                 expected);
    }

    // The command names dp-train by the full path of the one in the program's folder.
    void dpTrainIsFoundBesideTheProgram()
    {
        const QString folder = path(QStringLiteral("bin"));
        QVERIFY(QDir().mkpath(folder));
        QCOMPARE(dpTrainIn(folder), QString());
        const QString program = QDir(folder).filePath(QStringLiteral("dp-train"));
        writeFile(program, "#!/bin/sh\n");
        QCOMPARE(dpTrainIn(folder), QString());  // not executable
        QVERIFY(QFile::setPermissions(program, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        QCOMPARE(dpTrainIn(folder), QFileInfo(program).absoluteFilePath());
        QVERIFY(mpirunCommand(dp::TrainConfig(), 2, QString(), dpTrainIn(folder))
                        .startsWith(QStringLiteral("mpirun -np 2 ") + QFileInfo(program).absoluteFilePath()
                                    + QStringLiteral(" --distributed ")));
    }

private:
    QString path(const QString& name) const { return m_dir->filePath(name); }

    static void writeFile(const QString& file, const QByteArray& contents)
    {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(contents);
    }

    // Reads or changes the file behind RunHistory's back, on a connection of its own.
    template <typename Action>
    static void withConnection(const QString& file, Action action)
    {
        {
            QSqlDatabase db =
                    QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            db.setDatabaseName(file);
            QVERIFY(db.open());
            action(db);
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    }

    static int epochRowsIn(const QString& file)
    {
        int rows = -1;
        withConnection(file, [&](QSqlDatabase& db) {
            QSqlQuery query(QStringLiteral("SELECT count(*) FROM epochs"), db);
            if (query.next())
                rows = query.value(0).toInt();
        });
        return rows;
    }

    // Saves `record` in a new history at `file`, then runs `statements` on it
    // behind RunHistory's back (an older schema, a damaged cell).
    static void saveThenChange(const QString& file, const dp::RunRecord& record,
                               const QStringList& statements)
    {
        RunHistory(file).save(record);
        withConnection(file, [&](QSqlDatabase& db) {
            QSqlQuery query(db);
            for (const QString& statement : statements)
                QVERIFY2(query.exec(statement), qPrintable(statement));
        });
    }

    // Opens the history at `file`, changed behind RunHistory's back: its one
    // run reads as `asStored`, and `saved` saved into it then reads back whole.
    static void expectUpgraded(const QString& file, const dp::RunRecord& asStored,
                               const dp::RunRecord& saved)
    {
        RunHistory upgraded(file);
        QCOMPARE(upgraded.runs().size(), std::size_t(1));
        compareRecords(upgraded.runs().front(), asStored);
        upgraded.save(saved);
        compareRecords(*RunHistory(file).run(saved.id), saved);
    }

    // A history from before the runs table had `columns` (the first checked
    // by name) opens with its run as `asOlder` makes it read, gains the
    // columns, and keeps their values for runs saved from then on.
    void expectRunColumnsAdded(const QString& name, const QStringList& columns,
                               const std::function<void(dp::RunRecord&)>& asOlder)
    {
        const QString file = path(name);
        const dp::RunRecord record = everyFieldRecord();
        QStringList drops;
        for (const QString& column : columns)
            drops << QStringLiteral("ALTER TABLE runs DROP COLUMN %1").arg(column);
        saveThenChange(file, record, drops);
        QVERIFY(!columnsIn(file).contains(columns.first()));
        dp::RunRecord older = record;
        asOlder(older);
        expectUpgraded(file, older, record);
        QVERIFY(columnsIn(file).contains(columns.first()));
    }

    static QStringList columnsIn(const QString& file, const QString& table = QStringLiteral("runs"))
    {
        QStringList names;
        withConnection(file, [&](QSqlDatabase& db) {
            QSqlQuery query(QStringLiteral("PRAGMA table_info(%1)").arg(table), db);
            while (query.next())
                names << query.value(1).toString();
        });
        return names;
    }

    static void setUserVersion(const QString& file, int version)
    {
        withConnection(file, [&](QSqlDatabase& db) {
            QSqlQuery(db).exec(QStringLiteral("PRAGMA user_version = %1").arg(version));
        });
    }

    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_GUILESS_MAIN(TestRunHistory)
#include "test_run_history.moc"
