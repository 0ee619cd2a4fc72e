#include "scratch_folders.h"

#include <QCoreApplication>
#include <QDir>
#include <QRegularExpression>

#include <cerrno>
#include <csignal>
#include <limits>

#include <sys/types.h>

namespace {

const QString kPrefix = QStringLiteral("dp-workbench-");

}  // namespace

std::unique_ptr<QTemporaryDir> newScratchFolder()
{
    return std::make_unique<QTemporaryDir>(QDir(QDir::tempPath()).filePath(
        kPrefix + QString::number(QCoreApplication::applicationPid()) + QStringLiteral("-XXXXXX")));
}

int removeScratchOfDeadWorkbenches(const QString& folder)
{
    static const QRegularExpression name(QStringLiteral("^dp-workbench-(\\d+)-[A-Za-z0-9]{6}$"));
    const QDir scratch(folder.isEmpty() ? QDir::tempPath() : folder);
    int removed = 0;
    for (const QString& entry :
         scratch.entryList({kPrefix + QStringLiteral("*")}, QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden)) {
        const QRegularExpressionMatch match = name.match(entry);
        bool ok = false;
        const qint64 pid = match.hasMatch() ? match.captured(1).toLongLong(&ok) : 0;
        if (!ok || pid <= 0 || pid > std::numeric_limits<pid_t>::max())
            continue;
        // ESRCH: no such process. EPERM means one lives (another user's): kept.
        if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
            continue;
        if (QDir(scratch.filePath(entry)).removeRecursively())
            ++removed;
    }
    return removed;
}
