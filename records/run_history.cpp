#include "run_history.h"

#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <limits>

#include "core/error.h"
#include "core/exception_message.h"
#include "io/output_file.h"
#include "io/workbench_files.h"
#include "number_text.h"
#include "record/run_record_json.h"
#include "config/config_fields.h"
#include "record/step_timing_fields.h"

namespace {

// PRAGMA application_id marks the file as ours ("DPWB"); PRAGMA user_version
// is the schema version, raised with each change to the tables below that an
// older build could not live with. Columns added with a default (name, steps,
// step_totals, step_epochs, pid, host, epochs.test_loss) leave it: a build that lacks them still opens
// the file, reads its own columns, and its upserts leave the others as they
// are (the epochs it rewrites lose their test loss: NULL, read as not measured).
constexpr int kApplicationId = 0x44505742;
constexpr int kSchemaVersion = 2;
constexpr auto kSqliteNotADatabase = "26";  // SQLITE_NOTADB
constexpr int kSqliteBusy = 5, kSqliteLocked = 6;

// Refuses a history file (or a journal beside it) that is not a regular file
// before SQLite opens it: SQLite would write to a device, create
// "<device>-journal" beside it, or block on a pipe.
void refuseNonRegularFiles(const QString& path)
{
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
        const std::string file = path.toStdString() + suffix;
        if (const std::string kind = dp::non_file_kind(file); !kind.empty())
            throw dp::Error("run history " + file + " is " + kind + ", not a database file: "
                            "remove it, or set DP_WORKBENCH_DATA_DIR to another folder");
    }
}

// SQLite stores NaN as NULL, so NULL reads back as NaN.
QVariant real(double value) { return value; }
double real(const QVariant& value)
{
    return value.isNull() ? std::numeric_limits<double>::quiet_NaN() : value.toDouble();
}

QString listText(const std::vector<std::string>& items)
{
    QJsonArray array;
    for (const std::string& item : items)
        array.append(QString::fromStdString(item));
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

std::vector<std::string> listFromText(const QString& json)
{
    std::vector<std::string> items;
    for (const QJsonValue& item : QJsonDocument::fromJson(json.toUtf8()).array())
        items.push_back(item.toString().toStdString());
    return items;
}

// A column of the runs table: its SQL declaration and how it maps to a
// record. One list drives CREATE, INSERT and SELECT, so that no field can
// be stored and not read back; an older history gets the columns it lacks
// (ALTER TABLE ... DEFAULT), so every declaration has a default.
struct RunColumn {
    QString name;
    QString declaration;
    std::function<QVariant(const dp::RunRecord&)> get;
    std::function<void(dp::RunRecord&, const QVariant&)> set;
};

QString sqlText(const std::string& text)
{
    return QLatin1Char('\'') + QString::fromStdString(text).replace(QLatin1Char('\''), QLatin1String("''"))
            + QLatin1Char('\'');
}

// A setting's column (config/config_fields.h): typed by its kind, defaulting
// to TrainConfig's default.
RunColumn settingColumn(const dp::ConfigField& field)
{
    const dp::TrainConfig defaults;
    const std::string text = dp::field_text(field, defaults);
    switch (dp::field_kind(field)) {
    case dp::FieldKind::integer:
    case dp::FieldKind::boolean:
        return {field.name, QStringLiteral("INTEGER NOT NULL DEFAULT %1").arg(text == "true" ? "1" : text == "false" ? "0" : QString::fromStdString(text)),
                [&field](const dp::RunRecord& r) -> QVariant {
                    const std::string value = dp::field_text(field, r.config);
                    return value == "true" ? 1 : value == "false" ? 0 : std::stoll(value);
                },
                [&field](dp::RunRecord& r, const QVariant& v) {
                    dp::set_field_text(field, r.config, std::to_string(v.toLongLong()));
                }};
    // SQLite integers are signed: a uint64 is stored as its bits.
    case dp::FieldKind::uint64:
        return {field.name, QStringLiteral("INTEGER NOT NULL DEFAULT %1").arg(QString::fromStdString(text)),
                [&field](const dp::RunRecord& r) -> QVariant {
                    return qint64(std::stoull(dp::field_text(field, r.config)));
                },
                [&field](dp::RunRecord& r, const QVariant& v) {
                    dp::set_field_text(field, r.config, std::to_string(std::uint64_t(v.toLongLong())));
                }};
    // A float widens to a double exactly, and narrows back exactly; NaN is NULL.
    // The value itself, not its text: std::stod reads text in the process's
    // locale, and under de_DE.UTF-8 read "0.05" as 0.
    case dp::FieldKind::real32:
    case dp::FieldKind::real64:
        return {field.name, QStringLiteral("REAL DEFAULT %1").arg(QString::fromStdString(text)),
                [&field](const dp::RunRecord& r) { return real(*dp::field_number(field, r.config)); },
                [&field](dp::RunRecord& r, const QVariant& v) {
                    dp::set_field_text(field, r.config, numberText(real(v)).toStdString());
                }};
    case dp::FieldKind::text:
        return {field.name, QStringLiteral("TEXT NOT NULL DEFAULT %1").arg(sqlText(text)),
                [&field](const dp::RunRecord& r) -> QVariant {
                    return QString::fromStdString(dp::field_text(field, r.config));
                },
                [&field](dp::RunRecord& r, const QVariant& v) {
                    dp::set_field_text(field, r.config, v.toString().toStdString());
                }};
    // A JSON array of the items, in order.
    case dp::FieldKind::text_list:
        return {field.name, QStringLiteral("TEXT NOT NULL DEFAULT '[]'"),
                [&field](const dp::RunRecord& r) -> QVariant {
                    return listText(r.config.*std::get<std::vector<std::string> dp::TrainConfig::*>(field.member));
                },
                [&field](dp::RunRecord& r, const QVariant& v) {
                    r.config.*std::get<std::vector<std::string> dp::TrainConfig::*>(field.member) =
                            listFromText(v.toString());
                }};
    }
    throw std::logic_error("unknown setting kind");
}

// A list of the record's as a JSON array, written and read by the run
// record's own functions: [] by default, and a value this build cannot read
// counts as none rather than hiding the rest of the history.
template <typename Item>
RunColumn jsonColumn(const char* name, std::vector<Item> dp::RunRecord::*member,
                     std::string (*toJson)(const std::vector<Item>&),
                     std::vector<Item> (*fromJson)(std::string_view, const std::string&))
{
    return {QLatin1String(name), QStringLiteral("TEXT NOT NULL DEFAULT '[]'"),
            [member, toJson](const dp::RunRecord& r) -> QVariant {
                return QString::fromStdString(toJson(r.*member));
            },
            [name, member, fromJson](dp::RunRecord& r, const QVariant& v) {
                try {
                    r.*member = fromJson(v.toString().toStdString(), name);
                } catch (const dp::Error&) {
                    (r.*member).clear();
                }
            }};
}

// The record's own columns, then one per setting.
const std::vector<RunColumn>& runColumns()
{
    static const std::vector<RunColumn> columns = [] {
        const auto textColumn = [](const char* name, std::string dp::RunRecord::*member) {
            return RunColumn{name, QStringLiteral("TEXT NOT NULL DEFAULT ''"),
                             [member](const dp::RunRecord& r) -> QVariant {
                                 return QString::fromStdString(r.*member);
                             },
                             [member](dp::RunRecord& r, const QVariant& v) {
                                 r.*member = v.toString().toStdString();
                             }};
        };
        std::vector<RunColumn> list{
            {QStringLiteral("id"), QStringLiteral("TEXT PRIMARY KEY NOT NULL"),
             [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.id); },
             [](dp::RunRecord& r, const QVariant& v) { r.id = v.toString().toStdString(); }},
            textColumn("started_at", &dp::RunRecord::started_at),
            textColumn("source", &dp::RunRecord::source),
            // The process that writes the run while it trains: another
            // program's run reads as running while it lives. Histories from
            // before they were kept get 0 and '' (not known).
            {QStringLiteral("pid"), QStringLiteral("INTEGER NOT NULL DEFAULT 0"),
             [](const dp::RunRecord& r) -> QVariant { return qint64(r.pid); },
             [](dp::RunRecord& r, const QVariant& v) { r.pid = std::max<qint64>(0, v.toLongLong()); }},
            textColumn("host", &dp::RunRecord::host),
            {QStringLiteral("status"), QStringLiteral("TEXT NOT NULL DEFAULT 'running'"),
             [](const dp::RunRecord& r) -> QVariant {
                 return QString::fromLatin1(dp::run_status_name(r.status));
             },
             [](dp::RunRecord& r, const QVariant& v) {
                 r.status = dp::parse_run_status(v.toString().toStdString())
                                    .value_or(dp::RunStatus::interrupted);
             }},
            textColumn("error", &dp::RunRecord::error),
            {QStringLiteral("processes"), QStringLiteral("INTEGER NOT NULL DEFAULT 1"),
             [](const dp::RunRecord& r) -> QVariant { return r.processes; },
             [](dp::RunRecord& r, const QVariant& v) { r.processes = v.toInt(); }},
            textColumn("comparison_group", &dp::RunRecord::comparison_group),
            textColumn("name", &dp::RunRecord::name),
            textColumn("notes", &dp::RunRecord::notes),
            // A JSON array of the tags, in order.
            {QStringLiteral("tags"), QStringLiteral("TEXT NOT NULL DEFAULT '[]'"),
             [](const dp::RunRecord& r) -> QVariant { return listText(r.tags); },
             [](dp::RunRecord& r, const QVariant& v) { r.tags = listFromText(v.toString()); }},
            {QStringLiteral("deterministic"), QStringLiteral("INTEGER NOT NULL DEFAULT 1"),
             [](const dp::RunRecord& r) -> QVariant { return r.deterministic; },
             [](dp::RunRecord& r, const QVariant& v) { r.deterministic = v.toBool(); }},
            // The machine's load while the run trained: histories from before
            // it was kept read as not measured.
            {QStringLiteral("other_cores"), QStringLiteral("REAL NOT NULL DEFAULT -1"),
             [](const dp::RunRecord& r) -> QVariant { return r.other_cores; },
             [](dp::RunRecord& r, const QVariant& v) { r.other_cores = v.toDouble(); }},
            {QStringLiteral("busy"), QStringLiteral("INTEGER NOT NULL DEFAULT 0"),
             [](const dp::RunRecord& r) -> QVariant { return r.busy; },
             [](dp::RunRecord& r, const QVariant& v) { r.busy = v.toBool(); }},
            {QStringLiteral("usable_cores"), QStringLiteral("INTEGER NOT NULL DEFAULT 0"),
             [](const dp::RunRecord& r) -> QVariant { return r.usable_cores; },
             [](dp::RunRecord& r, const QVariant& v) { r.usable_cores = v.toInt(); }},
            // The step timings (RunRecord::step_totals), as the run record's
            // JSON holds them. Histories from before them get 0 and [] (no
            // timings); a value this build cannot read counts as none rather
            // than hiding the rest of the history.
            {QStringLiteral("steps"), QStringLiteral("INTEGER NOT NULL DEFAULT 0"),
             [](const dp::RunRecord& r) -> QVariant { return qint64(r.steps); },
             [](dp::RunRecord& r, const QVariant& v) { r.steps = std::max<qint64>(0, v.toLongLong()); }},
            {QStringLiteral("step_epochs"), QStringLiteral("INTEGER NOT NULL DEFAULT 0"),
             [](const dp::RunRecord& r) -> QVariant { return r.step_epochs; },
             // Read before the epochs are; RunSummary::timed_epochs caps it.
             [](dp::RunRecord& r, const QVariant& v) { r.step_epochs = std::max(0, v.toInt()); }},
            jsonColumn("step_totals", &dp::RunRecord::step_totals, dp::step_totals_json,
                       dp::step_totals_from_json),
            // The decimated loss per batch (RunRecord::batch_losses), as the
            // run record's JSON holds it; histories from before it get [] and
            // draw a point per epoch, as does a value this build cannot read.
            jsonColumn("batch_losses", &dp::RunRecord::batch_losses, dp::batch_losses_json,
                       dp::batch_losses_from_json),
        };
        for (const dp::ConfigField& field : dp::config_fields())
            list.push_back(settingColumn(field));
        return list;
    }();
    return columns;
}

// One row per completed epoch; position keeps RunRecord::epochs' order.
// Metric columns may be NULL: a NaN.
constexpr auto kCreateEpochs =
        "CREATE TABLE epochs (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
        "position INTEGER NOT NULL, epoch INTEGER NOT NULL, train_loss REAL, train_acc REAL, "
        "test_acc REAL, seconds REAL, parameter_drift REAL, test_loss REAL, device_cpu TEXT, "
        "PRIMARY KEY (run_id, position))";
constexpr auto kEpochColumns =
        "run_id, position, epoch, train_loss, train_acc, test_acc, seconds, parameter_drift, "
        "test_loss, device_cpu";
constexpr int kEpochColumnCount = 10;
// Epoch columns later than schema 1, added to older histories. NULL (NaN)
// in the rows they had, so no schema version of their own: an older build
// writes its epochs without them.
constexpr auto kLaterEpochColumns = {std::pair{"parameter_drift", "REAL"},
                                     std::pair{"test_loss", "REAL"},
                                     std::pair{"device_cpu", "TEXT"}};

// "a, b, c": each column of the runs table as `format` writes it.
QString runColumnList(QString (*format)(const QString& name, const QString& declaration))
{
    QStringList items;
    for (const RunColumn& column : runColumns())
        items << format(column.name, column.declaration);
    return items.join(QStringLiteral(", "));
}

QString columnName(const QString& name, const QString&) { return name; }

QString placeholders(int count)
{
    QStringList marks;
    for (int i = 0; i < count; ++i)
        marks << QStringLiteral("?");
    return marks.join(QStringLiteral(", "));
}

// One RunHistory's connection, with errors that name its file.
class Database
{
public:
    Database(const QString& connectionName, const QString& path)
        : connection_(QSqlDatabase::database(connectionName, false)), path_(path)
    {
    }

    QSqlDatabase connection() const { return connection_; }

    [[noreturn]] void fail(const QString& problem) const
    {
        throw dp::Error(QStringLiteral("run history %1: %2").arg(path_, problem).toStdString());
    }

    // "database is locked (during DELETE FROM epochs)"
    [[noreturn]] void fail(const QString& sql, const QSqlError& error) const
    {
        if (error.nativeErrorCode() == QLatin1String(kSqliteNotADatabase))
            fail(QStringLiteral("not a DP Workbench database (not an SQLite file)"));
        const QString reason = error.databaseText().isEmpty() ? error.driverText()
                                                              : error.databaseText();
        const QString problem = QStringLiteral("%1 (during %2)")
                                        .arg(reason.simplified(), sql.section(QLatin1Char(' '), 0, 2));
        // The primary result code is the low byte of an extended one.
        const int code = error.nativeErrorCode().toInt() & 0xff;
        if (code == kSqliteBusy || code == kSqliteLocked)
            throw RunHistoryLocked(QStringLiteral("run history %1: %2").arg(path_, problem).toStdString());
        fail(problem);
    }

    QSqlQuery exec(const QString& sql, const QVariantList& values = {}) const
    {
        QSqlQuery query = prepare(sql);
        run(query, sql, values);
        return query;
    }

    // A statement parsed once, to run() for many rows: parsing the runs
    // table's upsert took most of the time of saving a run.
    QSqlQuery prepare(const QString& sql) const
    {
        QSqlQuery query(connection_);
        query.setForwardOnly(true);
        if (!query.prepare(sql))
            fail(sql, query.lastError());
        return query;
    }

    // Runs prepare(sql)'s query with `values` for its placeholders, in order.
    void run(QSqlQuery& query, const QString& sql, const QVariantList& values) const
    {
        for (int i = 0; i < values.size(); ++i)
            query.bindValue(i, values[i]);
        if (!query.exec())
            fail(sql, query.lastError());
    }

    // prepare(sql)'s query run once per row; `columns` holds one list of values per placeholder.
    void runBatch(QSqlQuery& query, const QString& sql, const QList<QVariantList>& columns) const
    {
        for (int i = 0; i < columns.size(); ++i)
            query.bindValue(i, columns[i]);
        if (!query.execBatch())
            fail(sql, query.lastError());
    }

    // The one integer that `sql` (a PRAGMA, a count) answers.
    int integer(const QString& sql) const
    {
        QSqlQuery query = exec(sql);
        return query.next() ? query.value(0).toInt() : 0;
    }

private:
    QSqlDatabase connection_;
    QString path_;
};

// BEGIN IMMEDIATE takes the write lock at once, so that dp-train and the
// workbench writing together wait for each other (up to the busy timeout)
// instead of failing halfway. Rolled back unless committed.
class Transaction
{
public:
    explicit Transaction(const Database& database) : database_(database)
    {
        database_.exec(QStringLiteral("BEGIN IMMEDIATE"));
    }
    ~Transaction()
    {
        // Unwinding from an error already being reported: a failed rollback adds nothing.
        if (!committed_)
            QSqlQuery(database_.connection()).exec(QStringLiteral("ROLLBACK"));
    }
    void commit()
    {
        database_.exec(QStringLiteral("COMMIT"));
        committed_ = true;
    }

private:
    const Database& database_;
    bool committed_ = false;
};

QSet<QString> columnsOf(const Database& database, const QString& table)
{
    QSet<QString> names;
    QSqlQuery query = database.exec(QStringLiteral("PRAGMA table_info(%1)").arg(table));
    while (query.next())
        names.insert(query.value(1).toString());
    return names;
}

// How long the connection's statements wait for another program's lock,
// for this object's lifetime; then the usual RunHistory::kLockWait.
class LockWait
{
public:
    LockWait(const Database& database, std::chrono::milliseconds wait) : database_(database)
    {
        set(wait);
    }
    ~LockWait() { set(RunHistory::kLockWait); }

private:
    void set(std::chrono::milliseconds wait) const
    {
        QSqlQuery(database_.connection())
                .exec(QStringLiteral("PRAGMA busy_timeout = %1").arg(qint64(wait.count())));
    }
    const Database& database_;
};

// Whether the history already has this build's schema, found by reading
// alone: another program writing holds the write lock, not readers off.
bool schemaIsCurrent(const Database& database)
{
    if (database.integer(QStringLiteral("PRAGMA application_id")) != kApplicationId
        || database.integer(QStringLiteral("PRAGMA user_version")) != kSchemaVersion)
        return false;
    const QSet<QString> runs = columnsOf(database, QStringLiteral("runs"));
    const QSet<QString> epochs = columnsOf(database, QStringLiteral("epochs"));
    return std::all_of(runColumns().begin(), runColumns().end(),
                       [&](const RunColumn& column) { return runs.contains(column.name); })
        && std::all_of(kLaterEpochColumns.begin(), kLaterEpochColumns.end(),
                       [&](const auto& column) { return epochs.contains(QLatin1String(column.first)); });
}

void createOrCheckSchema(const Database& database)
{
    // A file that is not SQLite at all fails here, on its first read.
    if (schemaIsCurrent(database))
        return;
    Transaction transaction(database);
    const int applicationId = database.integer(QStringLiteral("PRAGMA application_id"));
    const bool empty = database.integer(QStringLiteral("SELECT count(*) FROM sqlite_master")) == 0;
    if (applicationId == 0 && empty) {
        const QString runColumns = runColumnList([](const QString& name, const QString& type) {
            return name + ' ' + type;
        });
        database.exec(QStringLiteral("CREATE TABLE runs (%1)").arg(runColumns));
        database.exec(QLatin1String(kCreateEpochs));
        database.exec(QStringLiteral("PRAGMA application_id = %1").arg(kApplicationId));
        database.exec(QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion));
    } else if (applicationId != kApplicationId) {
        database.fail(QStringLiteral("not a DP Workbench database"));
    } else if (const int version = database.integer(QStringLiteral("PRAGMA user_version"));
               version > kSchemaVersion || version < 1) {
        database.fail(QStringLiteral("schema version %1, this DP Workbench reads versions 1 to %2")
                              .arg(version)
                              .arg(kSchemaVersion));
    } else {
        // An older history (or one from a build between versions): the
        // columns it lacks are added with their defaults, its rows kept.
        const QSet<QString> runs = columnsOf(database, QStringLiteral("runs"));
        for (const RunColumn& column : runColumns()) {
            if (!runs.contains(column.name))
                database.exec(QStringLiteral("ALTER TABLE runs ADD COLUMN %1 %2")
                                      .arg(column.name, column.declaration));
        }
        const QSet<QString> epochs = columnsOf(database, QStringLiteral("epochs"));
        for (const auto& [name, declaration] : kLaterEpochColumns) {
            if (!epochs.contains(QLatin1String(name)))
                database.exec(QStringLiteral("ALTER TABLE epochs ADD COLUMN %1 %2")
                                      .arg(QLatin1String(name), QLatin1String(declaration)));
        }
        if (version < kSchemaVersion)
            database.exec(QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion));
    }
    transaction.commit();
}

// One row of the runs table as a record (epochs aside). Throws dp::Error
// naming the run and the column whose value this build cannot take (one a
// program or a hand wrote out of its range: epochs 99999999999, lr 1e300).
dp::RunRecord runFromRow(const QSqlQuery& row)
{
    dp::RunRecord record;
    for (int i = 0; i < int(runColumns().size()); ++i) {
        const RunColumn& column = runColumns()[std::size_t(i)];
        try {
            column.set(record, row.value(i));
        } catch (const std::exception& error) {
            throw dp::Error(QStringLiteral("run %1 left out: its %2 cannot be read (%3)")
                                    .arg(row.value(0).toString(), column.name,
                                         QString::fromStdString(dp::exception_message(error)))
                                    .toStdString());
        }
    }
    return record;
}

// The runs matching `condition` (SQL on the runs table, "" for all) with
// their epochs, oldest first. A row that cannot be read is left out, the
// others kept; each one left out adds a line to `skipped` (if given).
std::vector<dp::RunRecord> selectRuns(const Database& database, const QString& condition,
                                      const QVariantList& values,
                                      std::vector<std::string>* skipped,
                                      qint64* newestRowid = nullptr)
{
    std::vector<dp::RunRecord> runs;
    QHash<QString, std::size_t> indexById;
    // The rowid after the columns: which rows are newer than those read (changedRuns).
    QSqlQuery runRows = database.exec(
            QStringLiteral("SELECT %1, rowid FROM runs %2 ORDER BY started_at, rowid")
                    .arg(runColumnList(columnName), condition),
            values);
    while (runRows.next()) {
        if (newestRowid)
            *newestRowid = std::max(*newestRowid, runRows.value(int(runColumns().size())).toLongLong());
        try {
            dp::RunRecord record = runFromRow(runRows);
            indexById.insert(QString::fromStdString(record.id), runs.size());
            runs.push_back(std::move(record));
        } catch (const dp::Error& error) {
            if (skipped)
                skipped->push_back(error.what());
        }
    }
    QSqlQuery epochRows = database.exec(
            QStringLiteral("SELECT %1 FROM epochs WHERE run_id IN (SELECT id FROM runs %2) "
                           "ORDER BY run_id, position")
                    .arg(QLatin1String(kEpochColumns), condition),
            values);
    while (epochRows.next()) {
        dp::EpochMetrics epoch;
        epoch.epoch = epochRows.value(2).toInt();
        epoch.train_loss = real(epochRows.value(3));
        epoch.train_acc = real(epochRows.value(4));
        epoch.test_acc = real(epochRows.value(5));
        epoch.seconds = real(epochRows.value(6));
        epoch.parameter_drift = real(epochRows.value(7));
        epoch.test_loss = real(epochRows.value(8));
        // A JSON array of shares (EpochMetrics::device_cpu); NULL: not measured.
        for (const QJsonValue& share : QJsonDocument::fromJson(epochRows.value(9).toString().toUtf8()).array())
            epoch.device_cpu.push_back(share.toDouble());
        // The epochs of a run left out above go with it.
        if (const auto run = indexById.constFind(epochRows.value(0).toString()); run != indexById.cend())
            runs[*run].epochs.push_back(epoch);
    }
    return runs;
}

QString uniqueConnectionName()
{
    static std::atomic<int> instances{0};
    return QStringLiteral("dp_run_history_%1").arg(++instances);
}

} // namespace

QString RunHistory::defaultPath()
{
    // The engine's path, which dp-train's kernel cache and output checks use
    // too (Qt's AppDataLocation put it under "/.local/share" with HOME unset).
    return QFile::decodeName(dp::history_database_path().c_str());
}

RunHistory::RunHistory(const QString& path) : path_(path), connectionName_(uniqueConnectionName())
{
    try {
        refuseNonRegularFiles(path);
        const QString folder = QFileInfo(path).absolutePath();
        if (!QDir().mkpath(folder))
            throw dp::Error(QStringLiteral("run history %1: cannot create the folder %2 "
                                           "(set DP_WORKBENCH_DATA_DIR to a folder you can write)")
                                    .arg(path, folder)
                                    .toStdString());
        QSqlDatabase connection =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connectionName_);
        if (!connection.isValid())
            throw dp::Error("run history " + path.toStdString()
                            + ": Qt's SQLite driver is missing (install libqt6sql6-sqlite)");
        connection.setDatabaseName(path);
        connection.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        Database database(connectionName_, path_);
        if (!connection.open())
            database.fail(QStringLiteral("open"), connection.lastError());
        database.exec(QStringLiteral("PRAGMA foreign_keys = ON"));
        try {
            // Opening never waits for another program's lock: then the first
            // use checks the file instead, waiting as that use does.
            const LockWait noWait(database, std::chrono::milliseconds(0));
            requireSchema();
        } catch (const RunHistoryLocked&) {
        }
    } catch (const dp::Error&) {
        QSqlDatabase::removeDatabase(connectionName_);
        throw;
    }
}

void RunHistory::requireSchema() const
{
    if (schemaReady_)
        return;
    createOrCheckSchema(Database(connectionName_, path_));
    schemaReady_ = true;
}

RunHistory::~RunHistory()
{
    // Every QSqlDatabase and QSqlQuery on the connection is gone before it is removed.
    QSqlDatabase::database(connectionName_, false).close();
    QSqlDatabase::removeDatabase(connectionName_);
}

void RunHistory::save(const dp::RunRecord& record, std::chrono::milliseconds lock_wait)
{
    save(std::vector<dp::RunRecord>{record}, lock_wait);
}

void RunHistory::save(const std::vector<dp::RunRecord>& records, std::chrono::milliseconds lock_wait)
{
    const Database database(connectionName_, path_);
    const LockWait lockWait(database, lock_wait);  // this write's; the usual one after it
    requireSchema();
    // An upsert, not INSERT OR REPLACE: the row keeps its rowid, so its place
    // in runs() stays put while the run saves epoch after epoch.
    const QString upsertRun =
            QStringLiteral("INSERT INTO runs (%1) VALUES (%2) ON CONFLICT(id) DO UPDATE SET %3")
                    .arg(runColumnList(columnName), placeholders(int(runColumns().size())),
                         runColumnList([](const QString& name, const QString&) {
                             return name + QStringLiteral(" = excluded.") + name;
                         }));
    const QString insertEpochs = QStringLiteral("INSERT INTO epochs (%1) VALUES (%2)")
                                         .arg(QLatin1String(kEpochColumns), placeholders(kEpochColumnCount));
    const QString clearEpochs = QStringLiteral("DELETE FROM epochs WHERE run_id = ?");
    Transaction transaction(database);
    QSqlQuery upsertQuery = database.prepare(upsertRun);
    QSqlQuery clearQuery = database.prepare(clearEpochs);
    QSqlQuery insertQuery = database.prepare(insertEpochs);
    for (const dp::RunRecord& record : records) {
        QVariantList runValues;
        for (const RunColumn& column : runColumns())
            runValues << column.get(record);
        const QString id = QString::fromStdString(record.id);
        QList<QVariantList> epochColumns(kEpochColumnCount);
        for (std::size_t i = 0; i < record.epochs.size(); ++i) {
            const dp::EpochMetrics& epoch = record.epochs[i];
            epochColumns[0] << id;
            epochColumns[1] << qint64(i);
            epochColumns[2] << epoch.epoch;
            epochColumns[3] << real(epoch.train_loss);
            epochColumns[4] << real(epoch.train_acc);
            epochColumns[5] << real(epoch.test_acc);
            epochColumns[6] << real(epoch.seconds);
            epochColumns[7] << real(epoch.parameter_drift);
            epochColumns[8] << real(epoch.test_loss);
        QJsonArray shares;
        for (const double share : epoch.device_cpu)
            shares.append(share);
        epochColumns[9] << QString::fromUtf8(QJsonDocument(shares).toJson(QJsonDocument::Compact));
        }
        database.run(upsertQuery, upsertRun, runValues);
        database.run(clearQuery, clearEpochs, {id});
        if (!record.epochs.empty())
            database.runBatch(insertQuery, insertEpochs, epochColumns);
    }
    transaction.commit();
}

std::vector<dp::RunRecord> RunHistory::runs(std::vector<std::string>* skipped) const
{
    requireSchema();
    const Database database(connectionName_, path_);
    std::vector<std::string> unreadable;
    std::vector<dp::RunRecord> found = selectRuns(database, QString(), {}, &unreadable, &newestRowid_);
    followRunning(found);
    if (skipped)
        for (const std::string& problem : unreadable)
            skipped->push_back("run history " + path_.toStdString() + ": " + problem);
    return found;
}

std::vector<dp::RunRecord> RunHistory::changedRuns() const
{
    requireSchema();
    // The rows added since, every row running now, and those that were
    // running when last read (to see them end).
    QString condition = QStringLiteral("WHERE rowid > ? OR status = 'running'");
    QVariantList values{newestRowid_};
    if (!followedIds_.empty()) {
        condition += QStringLiteral(" OR id IN (%1)").arg(placeholders(int(followedIds_.size())));
        for (const std::string& id : followedIds_)
            values << QString::fromStdString(id);
    }
    std::vector<dp::RunRecord> found =
            selectRuns(Database(connectionName_, path_), condition, values, nullptr, &newestRowid_);
    followRunning(found);
    return found;
}

void RunHistory::followRunning(const std::vector<dp::RunRecord>& read) const
{
    followedIds_.clear();
    for (const dp::RunRecord& record : read)
        if (record.status == dp::RunStatus::running)
            followedIds_.push_back(record.id);
}

std::optional<dp::RunRecord> RunHistory::run(const std::string& id) const
{
    requireSchema();
    std::vector<dp::RunRecord> found =
            selectRuns(Database(connectionName_, path_), QStringLiteral("WHERE id = ?"),
                       {QString::fromStdString(id)}, nullptr);
    if (found.empty())
        return std::nullopt;
    return std::move(found.front());
}

void RunHistory::remove(const std::string& id)
{
    remove(std::vector<std::string>{id});
}

void RunHistory::remove(const std::vector<std::string>& ids)
{
    requireSchema();
    const Database database(connectionName_, path_);
    const QString removeRun = QStringLiteral("DELETE FROM runs WHERE id = ?");
    Transaction transaction(database);
    QSqlQuery removeQuery = database.prepare(removeRun);
    // The runs' epochs go with them (ON DELETE CASCADE).
    for (const std::string& id : ids)
        database.run(removeQuery, removeRun, {QString::fromStdString(id)});
    transaction.commit();
}
