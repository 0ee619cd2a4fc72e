#include "run_export.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include "number_text.h"
#include "run_comparison.h"

namespace {

QByteArray csvField(const QString& text)
{
    QByteArray field = text.toUtf8();
    if (!field.contains(',') && !field.contains('"') && !field.contains('\n')
        && !field.contains('\r'))
        return field;
    field.replace('"', "\"\"");
    return '"' + field + '"';
}

QByteArray csvLine(const QStringList& fields)
{
    QByteArray line;
    for (qsizetype i = 0; i < fields.size(); ++i)
        line += (i ? "," : "") + csvField(fields[i]);
    return line + "\r\n";
}

const QStringList runColumns{
        QStringLiteral("id"), QStringLiteral("label"), QStringLiteral("model"),
        QStringLiteral("dataset"), QStringLiteral("devices"), QStringLiteral("device_count"),
        QStringLiteral("processes"), QStringLiteral("global_batch"), QStringLiteral("lr"),
        QStringLiteral("epochs_done"), QStringLiteral("mean_seconds_per_epoch"),
        QStringLiteral("final_test_acc"), QStringLiteral("baseline_id"),
        QStringLiteral("speedup"), QStringLiteral("efficiency"),
        QStringLiteral("target_test_acc"), QStringLiteral("seconds_to_target"),
        QStringLiteral("status")};

QJsonValue optionalNumber(const std::optional<double>& value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

// Each run as its runsToJson object; the CSV writes the values in runColumns' order.
std::vector<QJsonObject> runRows(const std::vector<dp::RunRecord>& runs, double targetAccuracy)
{
    const std::vector<RunComparison> comparisons = compareRuns(runs, targetAccuracy);
    std::vector<QJsonObject> rows;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const dp::RunRecord& run = runs[i];
        const RunComparison& comparison = comparisons[i];
        QJsonArray devices;
        for (const std::string& device : run.config.devices)
            devices.append(QString::fromStdString(device));
        QJsonObject row;
        row[QStringLiteral("id")] = QString::fromStdString(run.id);
        row[QStringLiteral("label")] = QString::fromStdString(run.label());
        row[QStringLiteral("model")] = QString::fromStdString(run.config.model);
        row[QStringLiteral("dataset")] = QString::fromStdString(run.config.dataset);
        row[QStringLiteral("devices")] = devices;
        row[QStringLiteral("device_count")] = qint64(run.config.devices.size());
        row[QStringLiteral("processes")] = run.processes;
        row[QStringLiteral("global_batch")] = run.config.batch_size;
        // Through its shortest text, so that 0.2f is written 0.2, not 0.20000000298.
        row[QStringLiteral("lr")] = numberText(run.config.lr).toDouble();
        row[QStringLiteral("epochs_done")] = qint64(run.epochs.size());
        row[QStringLiteral("mean_seconds_per_epoch")] = comparison.secondsPerEpoch;
        row[QStringLiteral("final_test_acc")] = comparison.finalTestAcc;
        row[QStringLiteral("baseline_id")] = comparison.baseline
                ? QJsonValue(QString::fromStdString(runs[*comparison.baseline].id))
                : QJsonValue(QJsonValue::Null);
        row[QStringLiteral("speedup")] = optionalNumber(comparison.speedup);
        row[QStringLiteral("efficiency")] = optionalNumber(comparison.efficiency);
        row[QStringLiteral("target_test_acc")] = targetAccuracy;
        row[QStringLiteral("seconds_to_target")] = optionalNumber(comparison.secondsToTarget);
        row[QStringLiteral("status")] = QString::fromLatin1(dp::run_status_name(run.status));
        rows.push_back(row);
    }
    return rows;
}

QString csvText(const QJsonValue& value)
{
    switch (value.type()) {
    case QJsonValue::Double:
        return numberText(value.toDouble());
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Array: {
        QStringList items;
        for (const QJsonValue& item : value.toArray())
            items << csvText(item);
        return items.join(QLatin1Char(','));
    }
    default:
        return QString();
    }
}

} // namespace

QByteArray runsToCsv(const std::vector<dp::RunRecord>& runs, double targetAccuracy)
{
    QByteArray csv = csvLine(runColumns);
    for (const QJsonObject& row : runRows(runs, targetAccuracy)) {
        QStringList fields;
        for (const QString& column : runColumns)
            fields << csvText(row.value(column));
        csv += csvLine(fields);
    }
    return csv;
}

QByteArray runsToJson(const std::vector<dp::RunRecord>& runs, double targetAccuracy)
{
    QJsonArray array;
    for (const QJsonObject& row : runRows(runs, targetAccuracy))
        array.append(row);
    return QJsonDocument(array).toJson();
}

QByteArray epochsToCsv(const std::vector<dp::RunRecord>& runs)
{
    QByteArray csv = csvLine({QStringLiteral("run_id"), QStringLiteral("label"),
                              QStringLiteral("epoch"), QStringLiteral("train_loss"),
                              QStringLiteral("train_acc"), QStringLiteral("test_acc"),
                              QStringLiteral("seconds"), QStringLiteral("cumulative_seconds")});
    for (const dp::RunRecord& run : runs) {
        const QString label = QString::fromStdString(run.label());
        const std::vector<double> elapsed = cumulativeSeconds(run);
        for (std::size_t i = 0; i < run.epochs.size(); ++i) {
            const dp::EpochMetrics& epoch = run.epochs[i];
            csv += csvLine({QString::fromStdString(run.id), label, QString::number(epoch.epoch),
                            numberText(epoch.train_loss), numberText(epoch.train_acc),
                            numberText(epoch.test_acc), numberText(epoch.seconds),
                            numberText(elapsed[i])});
        }
    }
    return csv;
}
