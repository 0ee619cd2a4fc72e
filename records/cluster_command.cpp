#include "cluster_command.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>

#include "config/config_fields.h"

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

}  // namespace

// The inverse of dp-train's parsing: the command's settings (ConfigField::command)
// as flags, the essential ones always, the others when not at their default.
CommandWords mpirunWords(const dp::TrainConfig& settings, int processes, const QString& hostfile,
                         const QString& dpTrain)
{
    // What an MPI job cannot run (clusterChanges says so): DataParallel's
    // gathers to device 0 need one process, so DDP's ring stands in. A
    // straggler has no command scope: it is never passed on.
    dp::TrainConfig config = settings;
    if (config.allreduce == dp::AllReduceStrategy::dataparallel)
        config.allreduce = dp::AllReduceStrategy::ring;
    CommandWords words{{QStringLiteral("mpirun")},
                       {QStringLiteral("-np"), QString::number(processes)}};
    if (!hostfile.isEmpty())
        words.push_back({QStringLiteral("--hostfile"), hostfile});
    words.push_back({dpTrain});
    words.push_back({QStringLiteral("--distributed")});
    for (const dp::ConfigField& field : dp::config_fields()) {
        const bool always = field.scope & dp::ConfigField::essential;
        if (!field.flag || !(field.scope & dp::ConfigField::command)
            || (!always && dp::has_default_value(field, config)))
            continue;
        QStringList option{QString::fromLatin1(field.flag)};
        if (dp::field_kind(field) != dp::FieldKind::boolean)  // a switch's flag says it all
            option << QString::fromStdString(dp::field_text(field, config));
        words.push_back(option);
    }
    words.push_back({QStringLiteral("--record"), QStringLiteral("run.json")});
    return words;
}

QStringList clusterChanges(const dp::TrainConfig& config)
{
    QStringList changes;
    if (config.allreduce == dp::AllReduceStrategy::dataparallel)
        changes << QObject::tr("DataParallel gathers to device 0 within one process: the cluster "
                               "run all-reduces with ring (DDP's) instead.");
    if (!config.slow_devices.empty())
        changes << QObject::tr("The straggler (%1) is left out: it slows a device of a "
                               "one-process run.")
                       .arg(QStringLiteral("--slow-device ")
                            + QString::fromStdString(dp::field_text(dp::config_field("slow_devices"), config)));
    return changes;
}

QString shellCommand(const CommandWords& words, int maxColumns)
{
    const QString continuation = QStringLiteral(" \\");
    const QString indent = QStringLiteral("  ");
    QStringList lines;
    QString line;
    for (const QStringList& group : words) {
        QStringList quoted;
        for (const QString& word : group)
            quoted << shellQuoted(word);
        const QString text = quoted.join(QLatin1Char(' '));
        if (line.isEmpty()) {
            line = (lines.isEmpty() ? QString() : indent) + text;
            continue;
        }
        // Room for the group and the continuation this line may still need.
        if (maxColumns > 0
            && line.size() + 1 + text.size() + continuation.size() > maxColumns) {
            lines << line + continuation;
            line = indent + text;
        } else {
            line += QLatin1Char(' ') + text;
        }
    }
    if (!line.isEmpty())
        lines << line;
    return lines.join(QLatin1Char('\n'));
}

QString mpirunCommand(const dp::TrainConfig& config, int processes, const QString& hostfile,
                      const QString& dpTrain)
{
    return shellCommand(mpirunWords(config, processes, hostfile, dpTrain));
}

QString dpTrainIn(const QString& folder)
{
    const QFileInfo program(QDir(folder).filePath(QStringLiteral("dp-train")));
    return program.isFile() && program.isExecutable() ? program.absoluteFilePath() : QString();
}
