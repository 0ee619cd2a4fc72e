#include "run_export.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <variant>

#include "number_text.h"
#include "run_comparison.h"
#include "config/config_fields.h"
#include "record/step_timing_fields.h"

namespace {

// Spreadsheets (Excel) read a CSV as UTF-8, which run labels need ("1× cpu ·
// b256"), only when it starts with the byte-order mark.
constexpr char kUtf8ByteOrderMark[] = "\xEF\xBB\xBF";

QByteArray csvField(const QString& text)
{
    QByteArray field = text.toUtf8();
    if (!field.contains(',') && !field.contains('"') && !field.contains('\n')
        && !field.contains('\r'))
        return field;
    field.replace('"', "\"\"");
    return '"' + field + '"';
}

// A text cell as a spreadsheet shows it rather than runs it: Excel and
// LibreOffice read a cell that starts with = + - @ (or a tab or carriage
// return before one) as a formula, so a run named "=HYPERLINK(...)" would
// run when the file is opened. OWASP's advice: a leading single quote,
// which spreadsheets take as "text". Numbers never pass through here, so
// a negative number stays a number.
QString spreadsheetText(const QString& text)
{
    static const QString formulaStarts = QStringLiteral("=+-@\t\r");
    if (!text.isEmpty() && formulaStarts.contains(text.front()))
        return QLatin1Char('\'') + text;
    return text;
}

QByteArray csvLine(const QStringList& fields)
{
    QByteArray line;
    for (qsizetype i = 0; i < fields.size(); ++i)
        line += (i ? "," : "") + csvField(fields[i]);
    return line + "\r\n";
}

// The settings the exports list: every one a user gives, that is with a
// dp-train flag. The rest (previewed images, a comparison's parameter
// snapshots) is the workbench's own plumbing, not part of what a run is.
const std::vector<const dp::ConfigField*>& exportedSettings()
{
    static const std::vector<const dp::ConfigField*> fields = [] {
        std::vector<const dp::ConfigField*> given;
        for (const dp::ConfigField& field : dp::config_fields())
            if (field.flag)
                given.push_back(&field);
        return given;
    }();
    return fields;
}

// Whether `field` means anything for a run of `config`: the random data
// set's size settings for it alone, a data folder for the image sets alone.
bool settingApplies(const dp::ConfigField& field, const dp::TrainConfig& config)
{
    const std::string_view name = field.name;
    const bool random = config.dataset == "random";
    if (name == "input_size" || name == "samples")
        return random;
    if (name == "data_dir")
        return !random;
    return true;
}

// The run's identity and the user's tags and notes, its settings in the
// schema's order, then what it measured.
const QStringList& runColumns()
{
    static const QStringList columns = [] {
        QStringList names{QStringLiteral("id"), QStringLiteral("label"), QStringLiteral("tags"),
                          QStringLiteral("notes")};
        for (const dp::ConfigField* field : exportedSettings())
            names << QLatin1String(field->name);
        names << QStringLiteral("device_count") << QStringLiteral("processes")
              << QStringLiteral("epochs_done") << QStringLiteral("seconds_per_epoch")
              << QStringLiteral("seconds_per_epoch_min") << QStringLiteral("seconds_per_epoch_max")
              << QStringLiteral("busy") << QStringLiteral("final_test_acc")
              << QStringLiteral("baseline_id") << QStringLiteral("scaling")
              << QStringLiteral("speedup") << QStringLiteral("efficiency")
              << QStringLiteral("repeats") << QStringLiteral("speedup_median")
              << QStringLiteral("speedup_min") << QStringLiteral("speedup_max")
              << QStringLiteral("target_test_acc") << QStringLiteral("seconds_to_target")
              << QStringLiteral("speedup_to_target") << QStringLiteral("status");
        return names;
    }();
    return columns;
}

// A setting typed as JSON: numbers, true / false, text, a list of texts.
QJsonValue settingValue(const dp::ConfigField& field, const dp::TrainConfig& config)
{
    using dp::TrainConfig;
    switch (dp::field_kind(field)) {
    case dp::FieldKind::integer:
        return config.*std::get<int TrainConfig::*>(field.member);
    case dp::FieldKind::uint64: {
        const std::uint64_t value = config.*std::get<std::uint64_t TrainConfig::*>(field.member);
        // Qt's JSON integers stop at 2^63 - 1; past it (a seed) the decimal
        // text keeps the value exact, where a double would round it.
        if (value > std::uint64_t(std::numeric_limits<qint64>::max()))
            return QString::number(value);
        return qint64(value);
    }
    case dp::FieldKind::real32:
        // Through its shortest text, so that 0.2f is written 0.2, not 0.20000000298.
        return numberText(config.*std::get<float TrainConfig::*>(field.member)).toDouble();
    case dp::FieldKind::real64:
        return config.*std::get<double TrainConfig::*>(field.member);
    case dp::FieldKind::boolean:
        return config.*std::get<bool TrainConfig::*>(field.member);
    case dp::FieldKind::text:
        return QString::fromStdString(dp::field_text(field, config));
    case dp::FieldKind::text_list: {
        QJsonArray items;
        for (const std::string& item :
             config.*std::get<std::vector<std::string> TrainConfig::*>(field.member))
            items.append(QString::fromStdString(item));
        return items;
    }
    }
    return {};
}

QJsonValue optionalNumber(const std::optional<double>& value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

// One object per device with every field of record/step_timing_fields.h,
// as the run record's "step_totals" (dp::step_totals_json) holds them.
QJsonArray stepTotals(const std::vector<dp::DeviceStepTiming>& totals)
{
    QJsonArray devices;
    for (const dp::DeviceStepTiming& timing : totals) {
        QJsonObject device;
        for (const dp::StepTimingField& field : dp::step_timing_fields()) {
            const double value = dp::step_timing_value(field, timing);
            device[QLatin1String(field.name)] = std::holds_alternative<int dp::DeviceStepTiming::*>(field.member)
                    ? QJsonValue(qint64(value))
                    : QJsonValue(value);
        }
        devices.append(device);
    }
    return devices;
}

// Each run as its runsToJson object; the CSV writes the values in runColumns()' order.
std::vector<QJsonObject> runRows(const std::vector<dp::RunRecord>& runs, double targetAccuracy,
                                 const std::string& chosenBaseline)
{
    const std::vector<RunComparison> comparisons = compareRuns(runs, targetAccuracy, chosenBaseline);
    std::vector<QJsonObject> rows;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const dp::RunRecord& run = runs[i];
        const RunComparison& comparison = comparisons[i];
        QJsonObject row;
        row[QStringLiteral("id")] = QString::fromStdString(run.id);
        row[QStringLiteral("label")] = QString::fromStdString(run.label());
        QJsonArray tags;
        for (const std::string& tag : run.tags)
            tags.append(QString::fromStdString(tag));
        row[QStringLiteral("tags")] = tags;  // one cell in the CSV, comma-separated
        row[QStringLiteral("notes")] = QString::fromStdString(run.notes);
        for (const dp::ConfigField* field : exportedSettings())
            row[QLatin1String(field->name)] = settingApplies(*field, run.config)
                    ? settingValue(*field, run.config)
                    : QJsonValue(QJsonValue::Null);
        row[QStringLiteral("device_count")] = qint64(run.config.devices.size());
        row[QStringLiteral("processes")] = run.processes;
        row[QStringLiteral("epochs_done")] = qint64(run.epochs.size());
        // The steady epochs' median and range (dp::EpochTime), as the table shows them.
        const dp::EpochTime time = run.summary().epoch_time();
        row[QStringLiteral("seconds_per_epoch")] = comparison.secondsPerEpoch;
        row[QStringLiteral("seconds_per_epoch_min")] = run.epochs.empty() ? QJsonValue(QJsonValue::Null) : time.min;
        row[QStringLiteral("seconds_per_epoch_max")] = run.epochs.empty() ? QJsonValue(QJsonValue::Null) : time.max;
        row[QStringLiteral("busy")] = run.busy;
        row[QStringLiteral("final_test_acc")] = comparison.finalTestAcc;
        row[QStringLiteral("baseline_id")] = comparison.baseline
                ? QJsonValue(QString::fromStdString(runs[*comparison.baseline].id))
                : QJsonValue(QJsonValue::Null);
        row[QStringLiteral("scaling")] = comparison.scaling == MeasuredScaling::none
                ? QJsonValue(QJsonValue::Null)
                : QJsonValue(QString::fromLatin1(measuredScalingName(comparison.scaling)));
        row[QStringLiteral("speedup")] = optionalNumber(comparison.speedup);
        row[QStringLiteral("efficiency")] = optionalNumber(comparison.efficiency);
        // A repeated comparison's median and range, which its speedup quotes.
        if (const std::optional<dp::RepeatedSpeedup>& repeated = comparison.repeated) {
            row[QStringLiteral("repeats")] = repeated->repeats;
            row[QStringLiteral("speedup_median")] = repeated->median;
            row[QStringLiteral("speedup_min")] = repeated->min;
            row[QStringLiteral("speedup_max")] = repeated->max;
        } else {
            for (const char* column : {"repeats", "speedup_median", "speedup_min", "speedup_max"})
                row[QLatin1String(column)] = QJsonValue(QJsonValue::Null);
        }
        row[QStringLiteral("target_test_acc")] = targetAccuracy;
        row[QStringLiteral("seconds_to_target")] = optionalNumber(comparison.secondsToTarget);
        row[QStringLiteral("speedup_to_target")] = optionalNumber(comparison.speedupToTarget);
        row[QStringLiteral("status")] = QString::fromLatin1(dp::run_status_name(run.status));
        // JSON only (no CSV column holds a list of objects): the run's step
        // timings, as its record keeps them.
        row[QStringLiteral("steps")] = qint64(run.steps);
        row[QStringLiteral("step_totals")] = stepTotals(run.step_totals);
        rows.push_back(row);
    }
    return rows;
}

QString csvText(const QJsonValue& value)
{
    switch (value.type()) {
    case QJsonValue::Double: {
        // Whole numbers digit for digit (a seed may pass 2^53), others shortest.
        constexpr qint64 notWhole = std::numeric_limits<qint64>::min();
        const qint64 whole = value.toInteger(notWhole);
        return whole != notWhole ? QString::number(whole) : numberText(value.toDouble());
    }
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::String:
        return spreadsheetText(value.toString());
    case QJsonValue::Array: {
        // One cell: only its start can make it a formula.
        QStringList items;
        for (const QJsonValue& item : value.toArray())
            items << item.toString();
        return spreadsheetText(items.join(QLatin1Char(',')));
    }
    default:
        return QString();
    }
}

// runColumns() less those empty in every row: a table of Fashion-MNIST runs
// has no columns for the random set's sizes, nor for checkpoints none saved.
// Without rows, every column.
QStringList filledColumns(const std::vector<QJsonObject>& rows)
{
    if (rows.empty())
        return runColumns();
    QStringList filled;
    for (const QString& column : runColumns()) {
        if (std::any_of(rows.begin(), rows.end(),
                        [&](const QJsonObject& row) { return !csvText(row.value(column)).isEmpty(); }))
            filled << column;
    }
    return filled;
}

} // namespace

QByteArray runsToCsv(const std::vector<dp::RunRecord>& runs, double targetAccuracy,
                     const std::string& chosenBaseline)
{
    const std::vector<QJsonObject> rows = runRows(runs, targetAccuracy, chosenBaseline);
    const QStringList columns = filledColumns(rows);
    QByteArray csv = kUtf8ByteOrderMark;
    csv += csvLine(columns);
    for (const QJsonObject& row : rows) {
        QStringList fields;
        for (const QString& column : columns)
            fields << csvText(row.value(column));
        csv += csvLine(fields);
    }
    return csv;
}

QByteArray runsToJson(const std::vector<dp::RunRecord>& runs, double targetAccuracy,
                      const std::string& chosenBaseline)
{
    QJsonArray array;
    for (const QJsonObject& row : runRows(runs, targetAccuracy, chosenBaseline))
        array.append(row);
    return QJsonDocument(array).toJson();
}

QByteArray epochsToCsv(const std::vector<dp::RunRecord>& runs)
{
    QByteArray csv = kUtf8ByteOrderMark;
    csv += csvLine({QStringLiteral("run_id"), QStringLiteral("label"),
                              QStringLiteral("epoch"), QStringLiteral("train_loss"),
                              QStringLiteral("train_acc"), QStringLiteral("test_acc"),
                              QStringLiteral("seconds"), QStringLiteral("cumulative_seconds")});
    for (const dp::RunRecord& run : runs) {
        const QString id = spreadsheetText(QString::fromStdString(run.id));
        const QString label = spreadsheetText(QString::fromStdString(run.label()));
        const std::vector<double> elapsed = cumulativeSeconds(run);
        for (std::size_t i = 0; i < run.epochs.size(); ++i) {
            const dp::EpochMetrics& epoch = run.epochs[i];
            csv += csvLine({id, label, QString::number(epoch.epoch),
                            numberText(epoch.train_loss), numberText(epoch.train_acc),
                            numberText(epoch.test_acc), numberText(epoch.seconds),
                            numberText(elapsed[i])});
        }
    }
    return csv;
}
