#include "history_keeper.h"

#include <QFile>
#include <QSettings>
#include <QTimer>

#include <unordered_set>

#include "chart_board.h"
#include "core/error.h"
#include "core/exception_message.h"
#include "record/run_record_json.h"
#include "run_history.h"
#include "run_manager.h"
#include "runs_panel.h"
#include "runs_table_model.h"
#include "status_line.h"
#include "vocabulary.h"

namespace {

// How often the window looks for other programs' changes to the history: a
// scan of the runs table (not their epochs) each time, soon after an epoch.
constexpr int kHistoryFollowInterval = 2000;  // ms
// An import of more runs draws only the last of them: a thousand lines read
// as one smear, and QtCharts takes minutes to build and remove them.
constexpr std::size_t kMostRunsDrawnOnImport = 30;
// The ids of the runs checked (drawn on the charts), so a restart shows them again.
const QString kCheckedRunsKey = QStringLiteral("runs/checked");

}  // namespace

HistoryKeeper::HistoryKeeper(const Parts& parts, QObject* parent)
    : QObject(parent),
      history_(parts.history),
      runs_(parts.runs),
      runsModel_(parts.runsModel),
      runsPanel_(parts.runsPanel),
      charts_(parts.charts),
      status_(parts.status),
      confirm_(parts.confirm)
{
    connect(runsModel_, &RunsTableModel::checkedChanged, this, &HistoryKeeper::showRunOnCharts);
    connect(runsModel_, &RunsTableModel::checkedChanged, this, &HistoryKeeper::saveCheckedRuns);
}

void HistoryKeeper::followEditsAndDeletes()
{
    connect(runsPanel_, &RunsPanel::deleteRequested, this, &HistoryKeeper::deleteRuns);
    connect(runsModel_, &RunsTableModel::runRenamed, this, &HistoryKeeper::renameRun);
    connect(runsModel_, &RunsTableModel::runAnnotated, this, [this](const dp::RunRecord& record) {
        runs_->annotateCurrent(record);  // the run in flight keeps writing them
        saveEditedRun(record, tr("Could not keep the tags and notes: %1"));
    });
}

void HistoryKeeper::loadAndFollow()
{
    loadHistory();
    // Other programs' runs move on, end, or lose their process meanwhile.
    auto* historyFollower = new QTimer(this);
    connect(historyFollower, &QTimer::timeout, this, &HistoryKeeper::followHistory);
    historyFollower->start(kHistoryFollowInterval);
}

void HistoryKeeper::loadHistory()
{
    if (!history_)
        return;
    const QStringList checked = QSettings().value(kCheckedRunsKey).toStringList();
    std::vector<std::string> skipped;
    try {
        // Back on the charts as they were when the window closed.
        std::unordered_set<std::string> checkedIds;
        for (const QString& id : checked)
            checkedIds.insert(id.toStdString());
        const ChartBoard::LegendHold hold(*charts_);
        runsModel_->upsert(history_->runs(&skipped), true, checkedIds);
    } catch (const dp::Error& error) {
        const QString problem = tr("The history could not be read: %1").arg(QString::fromUtf8(error.what()));
        status_->appendLog(problem);
        runsPanel_->showHistoryProblem(problem);
        return;
    }
    // The card of the comparison on the charts when the window closed.
    if (const std::string group = runsModel_->latestCheckedComparisonGroup(); !group.empty())
        emit checkedComparisonLoaded(group);
    if (skipped.empty())
        return;
    QStringList problems;
    for (const std::string& line : skipped) {
        problems << QString::fromStdString(line);
        status_->appendLog(tr("history: %1").arg(problems.back()));
    }
    // The first few in the window, where the runs are missing; all in the log.
    constexpr int kProblemsShown = 3;
    runsPanel_->showHistoryProblem(
            tr("%1 of the history left out: %2%3")
                    .arg(vocabulary::runs(int(problems.size())))
                    .arg(problems.mid(0, kProblemsShown).join(QStringLiteral("; ")),
                         problems.size() > kProblemsShown ? tr("; the others in the Log tab")
                                                          : QString()));
}

void HistoryKeeper::followHistory()
{
    if (!history_)
        return;
    std::vector<dp::RunRecord> changed;
    try {
        changed = history_->changedRuns();
    } catch (const dp::Error&) {
        return;  // locked or unreadable for now: the next look, or loadHistory's message, tells
    }
    for (const dp::RunRecord& record : changed) {
        // This window's own runs: it shows them as it trains them.
        const int row = runsModel_->rowOf(record.id);
        if (row >= 0 && !runsModel_->isPast(row))
            continue;
        runsModel_->upsert(record, true);
    }
}

void HistoryKeeper::saveEditedRun(const dp::RunRecord& record, const QString& failure)
{
    try {
        if (history_ && !runs_->isRunningRun(record.id))
            history_->save(record);
    } catch (const dp::Error& error) {
        status_->show(failure.arg(QString::fromUtf8(error.what())), true);
    }
}

void HistoryKeeper::renameRun(const dp::RunRecord& record)
{
    runs_->renameCurrent(record.id, record.name);  // the run in flight keeps writing it
    saveEditedRun(record, tr("Could not rename: %1"));
    // Legends follow: every checked run is redrawn under its (maybe changed) label.
    for (const dp::RunRecord& checked : runsModel_->checkedRecords()) {
        showRunOnCharts(checked, false);
        showRunOnCharts(checked, true);
    }
}

void HistoryKeeper::saveCheckedRuns() const
{
    QStringList ids;
    for (const dp::RunRecord& record : runsModel_->checkedRecords())
        ids << QString::fromStdString(record.id);
    QSettings().setValue(kCheckedRunsKey, ids);
}

void HistoryKeeper::showRunOnCharts(const dp::RunRecord& record, bool shown)
{
    const int row = runsModel_->rowOf(record.id);
    charts_->setRunVisible(runsModel_->labelledRecord(row), runsModel_->color(row), shown);
}

void HistoryKeeper::deleteRuns(const std::vector<std::string>& ids)
{
    if (ids.empty()
        || !confirm_(tr("Delete %1 from the history? Their settings and epochs are "
                        "removed for good.").arg(vocabulary::runs(int(ids.size())))))
        return;
    try {
        if (history_)
            history_->remove(ids);
    } catch (const dp::Error& error) {
        status_->show(tr("Could not delete: %1").arg(QString::fromUtf8(error.what())), true);
        return;
    }
    {
        const ChartBoard::LegendHold hold(*charts_);
        for (const std::string& id : ids)
            charts_->removeRun(id);
    }
    runsModel_->remove(ids);
    saveCheckedRuns();
    status_->show(tr("Deleted %1 from the history").arg(vocabulary::runs(int(ids.size()))));
}

bool HistoryKeeper::importRunRecords(const QStringList& paths, QString* problem)
{
    try {
        std::vector<dp::RunRecord> records;
        QStringList importedFrom;
        std::unordered_set<std::string> ids;
        QStringList already;
        for (const QString& path : paths) {
            dp::RunRecord record = dp::read_run_record(QFile::encodeName(path).toStdString());
            // The same run twice would be one row updated, said as a second import;
            // but a run the history holds as it was before its end (the end could
            // not be written: a full disk) takes the record saved aside at its end.
            const int row = runsModel_->rowOf(record.id);
            const bool completesInterrupted =
                row >= 0 && runsModel_->isPast(row) && runsModel_->record(row).status == dp::RunStatus::running;
            if ((row >= 0 && !completesInterrupted) || !ids.insert(record.id).second) {
                already << QString::fromStdString(record.label());
                continue;
            }
            importedFrom << path;
            records.push_back(std::move(record));
        }
        if (history_)
            history_->save(records);
        const ChartBoard::LegendHold hold(*charts_);
        // Many at once are drawn up to the legend's readable count, the newest
        // files last; the others are listed for the user to check.
        std::unordered_set<std::string> drawn;
        for (std::size_t i = records.size() > kMostRunsDrawnOnImport ? records.size() - kMostRunsDrawnOnImport : 0;
             i < records.size(); ++i)
            drawn.insert(records[i].id);
        runsModel_->upsert(records, false, drawn);
        for (std::size_t i = 0; i < records.size(); ++i) {
            showRunOnCharts(records[i], runsModel_->isChecked(runsModel_->rowOf(records[i].id)));
            status_->appendLog(tr("imported %1 from %2").arg(QString::fromStdString(records[i].id), importedFrom[qsizetype(i)]));
        }
        if (records.size() == 1)
            status_->show(tr("Imported %1").arg(QString::fromStdString(records.front().label())));
        else if (records.size() > drawn.size())
            status_->show(tr("Imported %1; the last %2 are on the charts, check others in the runs table to draw them")
                           .arg(vocabulary::runs(int(records.size())))
                           .arg(drawn.size()));
        else if (!records.empty())
            status_->show(tr("Imported %1").arg(vocabulary::runs(int(records.size()))));
        else if (!already.isEmpty())
            status_->show(tr("Already in the history: %1").arg(already.join(QStringLiteral(", "))));
        return true;
    } catch (...) {
        // Anything at all (a full disk under the history, no memory left): a
        // line in the window, never an exception out of the menu's slot.
        const QString reason = QString::fromStdString(dp::current_exception_message());
        status_->show(tr("Import failed: %1").arg(reason), true);
        if (problem)
            *problem = reason;
        return false;
    }
}
