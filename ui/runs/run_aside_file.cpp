#include "run_aside_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "core/exception_message.h"
#include "record/run_record_json.h"

QString writeRunAside(const dp::RunRecord& record, const QStringList& folders, QString* problem)
{
    QStringList failures;
    for (const QString& folder : folders) {
        const QString path =
            QDir(folder).filePath(QStringLiteral("unkept-run-%1.json").arg(QString::fromStdString(record.id)));
        try {
            dp::write_run_record(QFile::encodeName(path).toStdString(), record);
            return path;
        } catch (...) {
            failures << QString::fromStdString(dp::current_exception_message());
        }
    }
    if (problem)
        *problem = failures.join(QStringLiteral("; "));
    return {};
}

QStringList runAsideFolders(const QString& historyPath)
{
    QStringList folders{QFileInfo(historyPath).absolutePath(), QDir::homePath(), QDir::tempPath()};
    folders.removeDuplicates();
    return folders;
}
