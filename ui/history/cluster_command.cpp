#include "cluster_command.h"

#include <QRegularExpression>
#include <QStringList>

#include "number_text.h"

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

QString mpirunCommand(const dp::TrainConfig& config, int processes, const QString& hostfile)
{
    const dp::TrainConfig defaults;
    QStringList words{QStringLiteral("mpirun"), QStringLiteral("-np"), QString::number(processes)};
    if (!hostfile.isEmpty())
        words << QStringLiteral("--hostfile") << hostfile;
    words << QStringLiteral("dp-train") << QStringLiteral("--distributed")
          << QStringLiteral("--model") << QString::fromStdString(config.model)
          << QStringLiteral("--batch-size") << QString::number(config.batch_size)
          << QStringLiteral("--lr") << numberText(config.lr)
          << QStringLiteral("--epochs") << QString::number(config.epochs)
          << QStringLiteral("--seed") << QString::number(config.seed);
    if (config.dataset != defaults.dataset)
        words << QStringLiteral("--dataset") << QString::fromStdString(config.dataset);
    if (config.dataset == "random") {
        if (config.input_size != defaults.input_size)
            words << QStringLiteral("--input-size") << QString::number(config.input_size);
        if (config.samples != defaults.samples)
            words << QStringLiteral("--samples") << QString::number(config.samples);
    }
    if (!config.data_dir.empty())
        words << QStringLiteral("--data-dir") << QString::fromStdString(config.data_dir);
    if (config.limit_train != defaults.limit_train)
        words << QStringLiteral("--limit-train") << QString::number(config.limit_train);
    if (config.limit_test != defaults.limit_test)
        words << QStringLiteral("--limit-test") << QString::number(config.limit_test);
    if (!config.shuffle)
        words << QStringLiteral("--no-shuffle");
    if (!config.load_path.empty())
        words << QStringLiteral("--load") << QString::fromStdString(config.load_path);
    if (config.allreduce != defaults.allreduce)
        words << QStringLiteral("--allreduce") << QString::fromStdString(config.allreduce);
    if (config.bucket_mb != defaults.bucket_mb)
        words << QStringLiteral("--bucket-mb") << numberText(config.bucket_mb);
    if (config.sync_bn)
        words << QStringLiteral("--sync-bn");
    words << QStringLiteral("--record") << QStringLiteral("run.json");

    QStringList quoted;
    for (const QString& word : std::as_const(words))
        quoted << shellQuoted(word);
    return quoted.join(QLatin1Char(' '));
}
