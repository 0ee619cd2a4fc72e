#include "run_record_json.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringDecoder>

#include <utility>

#include <QFile>

#include "core/error.h"
#include "io/bounded_file.h"
#include "number_text.h"
#include "run_record_rules.h"
#include "config/config_fields.h"
#include "record/step_timing_fields.h"

namespace {

constexpr auto kFormat = "dp-workbench run record";
constexpr int kVersion = 1;

[[noreturn]] void fail(const QString& problem)
{
    throw dp::Error("not a valid run record: " + problem.toStdString());
}

// One JSON object and where it sits in the record ("config", "epochs[2]"),
// so that a missing or mistyped field is named by its full path.
class FieldReader
{
public:
    FieldReader(const QJsonObject& object, const QString& path) : object_(object), path_(path) {}

    bool has(const QString& key) const { return object_.contains(key); }

    QJsonValue value(const QString& key) const
    {
        const QJsonValue value = object_.value(key);
        if (value.isUndefined())
            fail(name(key) + " is missing");
        return value;
    }

    std::string string(const QString& key) const
    {
        const QJsonValue field = value(key);
        if (!field.isString())
            fail(name(key) + " is not a string");
        return field.toString().toStdString();
    }

    bool boolean(const QString& key) const
    {
        const QJsonValue field = value(key);
        if (!field.isBool())
            fail(name(key) + " is not true or false");
        return field.toBool();
    }

    double number(const QString& key) const
    {
        const QJsonValue field = value(key);
        if (!field.isDouble())
            fail(name(key) + " is not a number");
        return field.toDouble();
    }

    // Qt keeps whole numbers that fit in qint64 exact (a uint64 seed above 2^63
    // would not be, and is rejected rather than changed).
    template <typename Integer>
    Integer integer(const QString& key) const
    {
        const double number = this->number(key);
        const qint64 whole = object_.value(key).toInteger();
        if (double(whole) != number || !std::in_range<Integer>(whole))
            fail(name(key) + " is not a whole number in range");
        return Integer(whole);
    }

    FieldReader object(const QString& key) const
    {
        const QJsonValue field = value(key);
        if (!field.isObject())
            fail(name(key) + " is not an object");
        return {field.toObject(), fieldPath(key)};
    }

    QJsonArray array(const QString& key) const
    {
        const QJsonValue field = value(key);
        if (!field.isArray())
            fail(name(key) + " is not an array");
        return field.toArray();
    }

    QString fieldPath(const QString& key) const
    {
        return path_.isEmpty() ? key : path_ + '.' + key;
    }

    // How messages name a field: "config.lr".
    QString name(const QString& key) const { return '"' + fieldPath(key) + '"'; }

private:
    QJsonObject object_;
    QString path_;
};

// Every setting of the schema (config/config_fields.h); those records have
// always held are required, later ones default when absent.
dp::TrainConfig readConfig(const FieldReader& c)
{
    dp::TrainConfig config;
    for (const dp::ConfigField& field : dp::config_fields()) {
        const QString key = QLatin1String(field.name);
        if (!c.has(key) && !(field.scope & dp::ConfigField::required))
            continue;
        std::string text;
        switch (dp::field_kind(field)) {
        case dp::FieldKind::integer: text = std::to_string(c.integer<int>(key)); break;
        case dp::FieldKind::uint64: text = std::to_string(c.integer<std::uint64_t>(key)); break;
        case dp::FieldKind::real32:
        case dp::FieldKind::real64: text = numberText(c.number(key)).toStdString(); break;
        case dp::FieldKind::boolean: text = c.boolean(key) ? "true" : "false"; break;
        case dp::FieldKind::text: text = c.string(key); break;
        case dp::FieldKind::text_list: {
            const QJsonArray items = c.array(key);
            for (qsizetype i = 0; i < items.size(); ++i) {
                if (!items[i].isString())
                    fail(QStringLiteral("\"%1[%2]\" is not a string").arg(c.fieldPath(key)).arg(i));
                if (i > 0)
                    text += ',';
                text += items[i].toString().toStdString();
            }
            break;
        }
        }
        try {
            dp::set_field_text(field, config, text);
        } catch (const dp::Error& error) {
            fail(c.name(key) + QStringLiteral(": ") + QString::fromUtf8(error.what()));
        }
    }
    return config;
}

dp::EpochMetrics readEpoch(const FieldReader& e)
{
    dp::EpochMetrics metrics;
    metrics.epoch = e.integer<int>("epoch");
    metrics.train_loss = e.number("train_loss");
    metrics.train_acc = e.number("train_acc");
    metrics.test_acc = e.number("test_acc");
    metrics.seconds = e.number("seconds");
    // Optional (older records lack it); null: not measured.
    if (e.has("parameter_drift") && !e.value("parameter_drift").isNull())
        metrics.parameter_drift = e.number("parameter_drift");
    return metrics;
}

// Why `bytes` cannot be JSON text, which is UTF-8: empty when they can.
// Windows tools save text as UTF-16 (a byte-order mark, or a zero byte in
// every other place), which the JSON parser would call an "illegal value".
QString encodingProblem(const QByteArray& bytes)
{
    const bool utf16Mark = bytes.startsWith("\xff\xfe") || bytes.startsWith("\xfe\xff");
    if (utf16Mark || bytes.left(4).contains('\0'))
        return QStringLiteral("the file is UTF-16 text, not UTF-8: save it as UTF-8 (as dp-train writes it)");
    QStringDecoder utf8(QStringDecoder::Utf8);
    const QString decoded = utf8(bytes);
    if (utf8.hasError())
        return QStringLiteral("the file is not UTF-8 text: save it as UTF-8 (as dp-train writes it)");
    return {};
}

// A UTF-8 byte-order mark, which some editors add, is no part of the JSON.
QByteArray withoutUtf8Mark(const QByteArray& bytes)
{
    return bytes.startsWith("\xef\xbb\xbf") ? bytes.mid(3) : bytes;
}

} // namespace

std::vector<dp::DeviceStepTiming> stepTotalsFromJson(const QJsonArray& totals, const QString& path)
{
    std::vector<dp::DeviceStepTiming> devices;
    for (qsizetype i = 0; i < totals.size(); ++i) {
        const QString at = QStringLiteral("%1[%2]").arg(path).arg(i);
        if (!totals[i].isObject())
            fail('"' + at + "\" is not an object");
        const FieldReader device(totals[i].toObject(), at);
        dp::DeviceStepTiming timing;
        for (const dp::StepTimingField& field : dp::step_timing_fields()) {
            const QString key = QLatin1String(field.name);
            const double value = std::holds_alternative<int dp::DeviceStepTiming::*>(field.member)
                    ? double(device.integer<int>(key))
                    : device.number(key);
            if (value < 0)
                fail(device.name(key) + QStringLiteral(" is negative"));
            dp::set_step_timing_value(field, timing, value);
        }
        devices.push_back(timing);
    }
    return devices;
}

dp::RunRecord runRecordFromJson(const QByteArray& bytes)
{
    if (const QString problem = encodingProblem(bytes); !problem.isEmpty())
        throw dp::Error("not a run record: " + problem.toStdString());
    const QByteArray json = withoutUtf8Mark(bytes);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        throw dp::Error(QStringLiteral("not a run record: not JSON (%1 at byte %2)")
                                .arg(parseError.errorString())
                                .arg(parseError.offset)
                                .toStdString());
    if (!document.isObject())
        throw dp::Error("not a run record: the JSON is not an object");
    const FieldReader r(document.object(), QString());
    if (r.value("format").toString() != QLatin1String(kFormat))
        throw dp::Error(std::string("not a run record: \"format\" is not \"") + kFormat + '"');
    if (const QJsonValue version = r.value("version"); !version.isDouble())
        fail(r.name(QStringLiteral("version")) + QStringLiteral(" is not a number"));
    else if (version != kVersion)
        throw dp::Error("unsupported run record version "
                        + version.toVariant().toString().toStdString()
                        + " (this DP Workbench reads version " + std::to_string(kVersion)
                        + "): import it with the DP Workbench that wrote it");

    dp::RunRecord record;
    record.id = r.string("id");
    record.started_at = r.string("started_at");
    record.source = r.string("source");
    const std::string status = r.string("status");
    if (const auto parsed = dp::parse_run_status(status))
        record.status = *parsed;
    else
        fail(r.name(QStringLiteral("status")) + QStringLiteral(" is not a run status: ")
             + QString::fromStdString(status).left(40));
    record.error = r.string("error");
    record.processes = r.integer<int>("processes");
    // Optional: records written before these keys existed lack them.
    if (r.has("comparison_group"))
        record.comparison_group = r.string("comparison_group");
    if (r.has("deterministic"))
        record.deterministic = r.boolean("deterministic");
    if (r.has("name"))
        record.name = r.string("name");
    record.config = readConfig(r.object("config"));
    const QJsonArray epochs = r.array("epochs");
    for (qsizetype i = 0; i < epochs.size(); ++i) {
        const QString path = QStringLiteral("epochs[%1]").arg(i);
        if (!epochs[i].isObject())
            fail('"' + path + "\" is not an object");
        record.epochs.push_back(readEpoch(FieldReader(epochs[i].toObject(), path)));
    }
    // Optional: records written before step timings were kept have none.
    if (r.has("steps")) {
        record.steps = r.integer<std::int64_t>("steps");
        if (record.steps < 0)
            fail(r.name(QStringLiteral("steps")) + QStringLiteral(" is negative"));
    }
    if (r.has("step_totals"))
        record.step_totals = stepTotalsFromJson(r.array("step_totals"), r.fieldPath("step_totals"));
    checkRecordedRun(record);
    return record;
}

dp::RunRecord readRunRecord(const QString& path)
{
    // Read as every input is (io/bounded_file.h): a FIFO, a device or a
    // folder is refused before it is read, and so is a file over the cap;
    // its errors name the path.
    const std::string bytes = dp::read_bounded_file(QFile::encodeName(path).toStdString(),
                                                    kMaxRunRecordBytes);
    dp::RunRecord record;
    try {
        record = runRecordFromJson(QByteArray::fromStdString(bytes));
    } catch (const dp::Error& error) {
        throw dp::Error(path.toStdString() + ": " + error.what());
    }
    // The file is a snapshot of a run that no process here carries on: a run
    // it calls running was cut off where the file ends, for this history.
    if (record.status == dp::RunStatus::running)
        record.status = dp::RunStatus::interrupted;
    return record;
}
