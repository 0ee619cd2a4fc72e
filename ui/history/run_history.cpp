#include "run_history.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QStringList>
#include <QVariant>

#include <atomic>
#include <limits>

#include "core/error.h"

namespace {

// PRAGMA application_id marks the file as ours ("DPWB"); PRAGMA user_version
// is the schema version, raised with each change to the tables below.
constexpr int kApplicationId = 0x44505742;
constexpr int kSchemaVersion = 2;
constexpr auto kSqliteNotADatabase = "26";  // SQLITE_NOTADB

// SQLite stores NaN as NULL, so NULL reads back as NaN.
QVariant real(double value) { return value; }
double real(const QVariant& value)
{
    return value.isNull() ? std::numeric_limits<double>::quiet_NaN() : value.toDouble();
}

QString devicesText(const std::vector<std::string>& devices)
{
    QJsonArray array;
    for (const std::string& device : devices)
        array.append(QString::fromStdString(device));
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

std::vector<std::string> devicesFromText(const QString& json)
{
    std::vector<std::string> devices;
    for (const QJsonValue& device : QJsonDocument::fromJson(json.toUtf8()).array())
        devices.push_back(device.toString().toStdString());
    return devices;
}

// A column of the runs table: its SQL declaration and how it maps to a
// record. One list drives CREATE, INSERT and SELECT, so that no field can
// be stored and not read back.
struct RunColumn {
    const char* name;
    const char* declaration;
    QVariant (*get)(const dp::RunRecord&);
    void (*set)(dp::RunRecord&, const QVariant&);
    // The schema version that added the column: older histories get it by
    // ALTER TABLE, so its declaration needs a DEFAULT.
    int since = 1;
};

const RunColumn kRunColumns[] = {
    {"id", "TEXT PRIMARY KEY NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.id); },
     [](dp::RunRecord& r, const QVariant& v) { r.id = v.toString().toStdString(); }},
    {"started_at", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.started_at); },
     [](dp::RunRecord& r, const QVariant& v) { r.started_at = v.toString().toStdString(); }},
    {"source", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.source); },
     [](dp::RunRecord& r, const QVariant& v) { r.source = v.toString().toStdString(); }},
    {"status", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.status); },
     [](dp::RunRecord& r, const QVariant& v) { r.status = v.toString().toStdString(); }},
    {"error", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.error); },
     [](dp::RunRecord& r, const QVariant& v) { r.error = v.toString().toStdString(); }},
    {"processes", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.processes; },
     [](dp::RunRecord& r, const QVariant& v) { r.processes = v.toInt(); }},
    {"model", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.config.model); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.model = v.toString().toStdString(); }},
    {"batch_size", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.batch_size; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.batch_size = v.toInt(); }},
    // A float widens to a double exactly, and narrows back exactly.
    {"lr", "REAL",
     [](const dp::RunRecord& r) { return real(double(r.config.lr)); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.lr = float(real(v)); }},
    {"epochs", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.epochs; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.epochs = v.toInt(); }},
    // SQLite integers are signed: the uint64 seed is stored as its bits.
    {"seed", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return qint64(r.config.seed); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.seed = std::uint64_t(v.toLongLong()); }},
    {"dataset", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.config.dataset); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.dataset = v.toString().toStdString(); }},
    {"data_dir", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.config.data_dir); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.data_dir = v.toString().toStdString(); }},
    {"input_size", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.input_size; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.input_size = v.toInt(); }},
    {"samples", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.samples; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.samples = v.toInt(); }},
    {"limit_train", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.limit_train; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.limit_train = v.toInt(); }},
    {"limit_test", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.limit_test; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.limit_test = v.toInt(); }},
    {"shuffle", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.shuffle; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.shuffle = v.toBool(); }},
    {"load_path", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.config.load_path); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.load_path = v.toString().toStdString(); }},
    {"save_path", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.config.save_path); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.save_path = v.toString().toStdString(); }},
    {"record_path", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant {
         return QString::fromStdString(r.config.record_path);
     },
     [](dp::RunRecord& r, const QVariant& v) {
         r.config.record_path = v.toString().toStdString();
     }},
    {"preview_samples", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.preview_samples; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.preview_samples = v.toInt(); }},
    // A JSON array of device ids, in order.
    {"devices", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return devicesText(r.config.devices); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.devices = devicesFromText(v.toString()); }},
    {"allreduce", "TEXT NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.config.allreduce); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.allreduce = v.toString().toStdString(); }},
    {"bucket_mb", "REAL",
     [](const dp::RunRecord& r) { return real(r.config.bucket_mb); },
     [](dp::RunRecord& r, const QVariant& v) { r.config.bucket_mb = real(v); }},
    {"sync_bn", "INTEGER NOT NULL",
     [](const dp::RunRecord& r) -> QVariant { return r.config.sync_bn; },
     [](dp::RunRecord& r, const QVariant& v) { r.config.sync_bn = v.toBool(); }},
    {"comparison_group", "TEXT NOT NULL DEFAULT ''",
     [](const dp::RunRecord& r) -> QVariant { return QString::fromStdString(r.comparison_group); },
     [](dp::RunRecord& r, const QVariant& v) { r.comparison_group = v.toString().toStdString(); },
     2},
    {"deterministic", "INTEGER NOT NULL DEFAULT 1",
     [](const dp::RunRecord& r) -> QVariant { return r.deterministic; },
     [](dp::RunRecord& r, const QVariant& v) { r.deterministic = v.toBool(); }, 2},
};

// One row per completed epoch; position keeps RunRecord::epochs' order.
// Metric columns may be NULL: a NaN.
constexpr auto kCreateEpochs =
        "CREATE TABLE epochs (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
        "position INTEGER NOT NULL, epoch INTEGER NOT NULL, train_loss REAL, train_acc REAL, "
        "test_acc REAL, seconds REAL, parameter_drift REAL, PRIMARY KEY (run_id, position))";
constexpr auto kEpochColumns =
        "run_id, position, epoch, train_loss, train_acc, test_acc, seconds, parameter_drift";
constexpr int kEpochColumnCount = 8;
// What schema 2 added to the epochs table (the runs table's additions are in kRunColumns).
constexpr auto kAddEpochColumnsV2 = "ALTER TABLE epochs ADD COLUMN parameter_drift REAL";

// "a, b, c": each column of the runs table as `format` writes it.
QString runColumnList(QString (*format)(const QString& name, const QString& declaration))
{
    QStringList items;
    for (const RunColumn& column : kRunColumns)
        items << format(QLatin1String(column.name), QLatin1String(column.declaration));
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
        : m_connection(QSqlDatabase::database(connectionName, false)), m_path(path)
    {
    }

    QSqlDatabase connection() const { return m_connection; }

    [[noreturn]] void fail(const QString& problem) const
    {
        throw dp::Error(QStringLiteral("run history %1: %2").arg(m_path, problem).toStdString());
    }

    // "database is locked (during DELETE FROM epochs)"
    [[noreturn]] void fail(const QString& sql, const QSqlError& error) const
    {
        if (error.nativeErrorCode() == QLatin1String(kSqliteNotADatabase))
            fail(QStringLiteral("not a DP Workbench database (not an SQLite file)"));
        const QString reason = error.databaseText().isEmpty() ? error.driverText()
                                                              : error.databaseText();
        fail(QStringLiteral("%1 (during %2)")
                     .arg(reason.simplified(), sql.section(QLatin1Char(' '), 0, 2)));
    }

    QSqlQuery exec(const QString& sql, const QVariantList& values = {}) const
    {
        QSqlQuery query(m_connection);
        query.setForwardOnly(true);
        if (!query.prepare(sql))
            fail(sql, query.lastError());
        for (const QVariant& value : values)
            query.addBindValue(value);
        if (!query.exec())
            fail(sql, query.lastError());
        return query;
    }

    // One statement run once per row; `columns` holds one list of values per placeholder.
    void execBatch(const QString& sql, const QList<QVariantList>& columns) const
    {
        QSqlQuery query(m_connection);
        if (!query.prepare(sql))
            fail(sql, query.lastError());
        for (const QVariantList& column : columns)
            query.addBindValue(column);
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
    QSqlDatabase m_connection;
    QString m_path;
};

// BEGIN IMMEDIATE takes the write lock at once, so that dp-train and the
// workbench writing together wait for each other (up to the busy timeout)
// instead of failing halfway. Rolled back unless committed.
class Transaction
{
public:
    explicit Transaction(const Database& database) : m_database(database)
    {
        m_database.exec(QStringLiteral("BEGIN IMMEDIATE"));
    }
    ~Transaction()
    {
        // Unwinding from an error already being reported: a failed rollback adds nothing.
        if (!m_committed)
            QSqlQuery(m_database.connection()).exec(QStringLiteral("ROLLBACK"));
    }
    void commit()
    {
        m_database.exec(QStringLiteral("COMMIT"));
        m_committed = true;
    }

private:
    const Database& m_database;
    bool m_committed = false;
};

void createOrCheckSchema(const Database& database)
{
    // A file that is not SQLite at all fails here, on its first read.
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
    } else if (version < kSchemaVersion) {
        // An older history: add the columns that came since, with their defaults.
        for (const RunColumn& column : kRunColumns) {
            if (column.since > version)
                database.exec(QStringLiteral("ALTER TABLE runs ADD COLUMN %1 %2")
                                      .arg(QLatin1String(column.name),
                                           QLatin1String(column.declaration)));
        }
        if (version < 2)
            database.exec(QLatin1String(kAddEpochColumnsV2));
        database.exec(QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion));
    }
    transaction.commit();
}

// The runs matching `condition` (SQL on the runs table, "" for all) with
// their epochs, oldest first.
std::vector<dp::RunRecord> selectRuns(const Database& database, const QString& condition,
                                      const QVariantList& values)
{
    std::vector<dp::RunRecord> runs;
    QHash<QString, std::size_t> indexById;
    QSqlQuery runRows = database.exec(
            QStringLiteral("SELECT %1 FROM runs %2 ORDER BY started_at, rowid")
                    .arg(runColumnList(columnName), condition),
            values);
    while (runRows.next()) {
        dp::RunRecord record;
        for (int i = 0; i < int(std::size(kRunColumns)); ++i)
            kRunColumns[i].set(record, runRows.value(i));
        indexById.insert(QString::fromStdString(record.id), runs.size());
        runs.push_back(std::move(record));
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
        runs[indexById.value(epochRows.value(0).toString())].epochs.push_back(epoch);
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
    const QString dataDir = qEnvironmentVariable("DP_WORKBENCH_DATA_DIR");
    if (!dataDir.isEmpty())
        return QDir(dataDir).filePath(QStringLiteral("runs.sqlite"));
    // The folder follows the application's names; dp-train and the workbench
    // name themselves differently, so both borrow these while asking.
    const QString organization = QCoreApplication::organizationName();
    const QString application = QCoreApplication::applicationName();
    QCoreApplication::setOrganizationName(QStringLiteral("DP Workbench"));
    QCoreApplication::setApplicationName(QStringLiteral("DP Workbench"));
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QCoreApplication::setOrganizationName(organization);
    QCoreApplication::setApplicationName(application);
    return QDir(folder).filePath(QStringLiteral("runs.sqlite"));
}

RunHistory::RunHistory(const QString& path) : m_path(path), m_connectionName(uniqueConnectionName())
{
    try {
        const QString folder = QFileInfo(path).absolutePath();
        if (!QDir().mkpath(folder))
            throw dp::Error(QStringLiteral("run history %1: cannot create the folder %2")
                                    .arg(path, folder)
                                    .toStdString());
        QSqlDatabase connection =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
        if (!connection.isValid())
            throw dp::Error("run history " + path.toStdString()
                            + ": Qt's SQLite driver is missing (install libqt6sql6-sqlite)");
        connection.setDatabaseName(path);
        connection.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        Database database(m_connectionName, m_path);
        if (!connection.open())
            database.fail(QStringLiteral("open"), connection.lastError());
        database.exec(QStringLiteral("PRAGMA foreign_keys = ON"));
        createOrCheckSchema(database);
    } catch (const dp::Error&) {
        QSqlDatabase::removeDatabase(m_connectionName);
        throw;
    }
}

RunHistory::~RunHistory()
{
    // Every QSqlDatabase and QSqlQuery on the connection is gone before it is removed.
    QSqlDatabase::database(m_connectionName, false).close();
    QSqlDatabase::removeDatabase(m_connectionName);
}

void RunHistory::save(const dp::RunRecord& record)
{
    const Database database(m_connectionName, m_path);
    QVariantList runValues;
    for (const RunColumn& column : kRunColumns)
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
    }

    Transaction transaction(database);
    // An upsert, not INSERT OR REPLACE: the row keeps its rowid, so its place
    // in runs() stays put while the run saves epoch after epoch.
    database.exec(QStringLiteral("INSERT INTO runs (%1) VALUES (%2) "
                                 "ON CONFLICT(id) DO UPDATE SET %3")
                          .arg(runColumnList(columnName),
                               placeholders(int(std::size(kRunColumns))),
                               runColumnList([](const QString& name, const QString&) {
                                   return name + QStringLiteral(" = excluded.") + name;
                               })),
                  runValues);
    database.exec(QStringLiteral("DELETE FROM epochs WHERE run_id = ?"), {id});
    if (!record.epochs.empty())
        database.execBatch(QStringLiteral("INSERT INTO epochs (%1) VALUES (%2)")
                                   .arg(QLatin1String(kEpochColumns),
                                        placeholders(kEpochColumnCount)),
                           epochColumns);
    transaction.commit();
}

std::vector<dp::RunRecord> RunHistory::runs() const
{
    return selectRuns(Database(m_connectionName, m_path), QString(), {});
}

std::optional<dp::RunRecord> RunHistory::run(const std::string& id) const
{
    std::vector<dp::RunRecord> found =
            selectRuns(Database(m_connectionName, m_path), QStringLiteral("WHERE id = ?"),
                       {QString::fromStdString(id)});
    if (found.empty())
        return std::nullopt;
    return std::move(found.front());
}

void RunHistory::remove(const std::string& id)
{
    // The run's epochs go with it (ON DELETE CASCADE).
    Database(m_connectionName, m_path)
            .exec(QStringLiteral("DELETE FROM runs WHERE id = ?"), {QString::fromStdString(id)});
}
