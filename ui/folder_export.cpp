#include "folder_export.h"

#include <QDir>
#include <QLineSeries>
#include <QFile>
#include <QSaveFile>

#include "batch_split_view.h"
#include "chart_board.h"
#include "classroom_page.h"
#include "run_export.h"
#include "runs_table_model.h"
#include "scaling_prediction_chart.h"
#include "scaling_prediction_page.h"
#include "status_line.h"
#include "vocabulary.h"
#include "widget_image_export.h"

namespace {

bool writeFile(const QString& path, const QByteArray& contents)
{
    QSaveFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size()
        && file.commit();
}

}  // namespace

FolderExport::FolderExport(const Parts& parts, QObject* parent) : QObject(parent), parts_(parts) {}

bool FolderExport::exportTo(const QString& folder)
{
    if (!QDir().mkpath(folder)) {
        parts_.status->show(tr("Export failed: cannot create %1").arg(folder), true);
        return false;
    }
    const QDir dir(folder);
    QString failed = parts_.charts->exportTo(dir);
    // The step view and the Scaling chart too, where they show something.
    if (failed.isEmpty() && !parts_.classroomPage->batchSplitView()->lastShards().empty())
        failed = exportWidget(*parts_.classroomPage->batchSplitView(), dir, QStringLiteral("batch_split"));
    if (failed.isEmpty() && parts_.scalingPage->chart()->predictedLine()->count() > 0)
        failed = exportWidget(*parts_.scalingPage->chart(), dir, QStringLiteral("scaling_prediction"));
    if (!failed.isEmpty()) {
        parts_.status->show(tr("Export failed: cannot write %1").arg(failed), true);
        return false;
    }
    const std::vector<dp::RunRecord> runs = parts_.runsModel->checkedRecords();
    const double target = parts_.runsModel->targetAccuracy();
    const std::vector<std::pair<QString, QByteArray>> tables = {
        {QStringLiteral("runs.csv"), runsToCsv(runs, target, parts_.runsModel->chosenBaseline())},
        {QStringLiteral("runs.json"), runsToJson(runs, target, parts_.runsModel->chosenBaseline())},
        {QStringLiteral("epochs.csv"), epochsToCsv(runs)},
    };
    for (const auto& [name, contents] : tables) {
        if (!writeFile(dir.filePath(name), contents)) {
            parts_.status->show(tr("Export failed: cannot write %1").arg(dir.filePath(name)), true);
            return false;
        }
    }
    // The runs' step traces, where Run > Write step traces wrote them.
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const QString trace = QString::fromStdString(runs[i].config.trace_path);
        const QString copy = dir.filePath(QStringLiteral("trace_run%1.json").arg(i + 1));
        if (trace.isEmpty() || !QFile::exists(trace))
            continue;
        QFile::remove(copy);
        if (!QFile::copy(trace, copy)) {
            parts_.status->show(tr("Export failed: cannot write %1").arg(copy), true);
            return false;
        }
    }
    parts_.status->show(tr("Exported the charts and %1 to %2").arg(vocabulary::runs(int(runs.size())), folder));
    return true;
}
