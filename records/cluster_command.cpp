#include "cluster_command.h"

#include <QRegularExpression>
#include <QStringList>

#include "train/config_fields.h"

namespace {

// POSIX shell quoting: words of safe characters as they are, anything else
// in single quotes (a quote inside becomes '\'').
QString shellQuoted(const QString& word)
{
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    if (safe.match(word).hasMatch())
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

} // namespace

// The inverse of dp-train's parsing: the command's settings (ConfigField::command)
// as flags, the essential ones always, the others when not at their default.
QString mpirunCommand(const dp::TrainConfig& config, int processes, const QString& hostfile)
{
    QStringList words{QStringLiteral("mpirun"), QStringLiteral("-np"), QString::number(processes)};
    if (!hostfile.isEmpty())
        words << QStringLiteral("--hostfile") << hostfile;
    words << QStringLiteral("dp-train") << QStringLiteral("--distributed");
    for (const dp::ConfigField& field : dp::config_fields()) {
        const bool always = field.scope & dp::ConfigField::essential;
        if (!field.flag || !(field.scope & dp::ConfigField::command)
            || (!always && dp::has_default_value(field, config)))
            continue;
        words << QString::fromLatin1(field.flag);
        if (dp::field_kind(field) != dp::FieldKind::boolean)  // a switch's flag says it all
            words << QString::fromStdString(dp::field_text(field, config));
    }
    words << QStringLiteral("--record") << QStringLiteral("run.json");

    QStringList quoted;
    for (const QString& word : std::as_const(words))
        quoted << shellQuoted(word);
    return quoted.join(QLatin1Char(' '));
}
