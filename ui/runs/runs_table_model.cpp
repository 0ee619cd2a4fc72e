#include "runs_table_model.h"
#include "run_annotations.h"

#include <QDateTime>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include "run_palette.h"
#include "run_swatch.h"
#include "seed_groups.h"
#include "vocabulary.h"

#include "config/config_fields.h"
#include "record/run_record_rules.h"

namespace {

QString dash()
{
    return QStringLiteral("—");
}

QString startedText(const dp::RunRecord& record, bool past)
{
    const QDateTime started =
        QDateTime::fromString(QString::fromStdString(record.started_at), Qt::ISODate);
    QString text = started.isValid() ? started.toLocalTime().toString(QStringLiteral("MMM d hh:mm"))
                                     : QString::fromStdString(record.started_at);
    if (record.source != "dp-workbench")
        text += QStringLiteral(" · %1").arg(QString::fromStdString(record.source));
    if (past)
        text += RunsTableModel::tr(" · past");
    return text;
}

// A range as "(1.88–2.02)" after its median, for a repeated comparison.
QString rangeText(double min, double max, int decimals)
{
    return QStringLiteral(" (%1–%2)").arg(min, 0, 'f', decimals).arg(max, 0, 'f', decimals);
}

// "1.95× (1.88–2.02) strong": a repeated comparison's median and range of
// speedups, else the run's own; and which scaling it measured.
QString speedupText(const RunComparison& comparison)
{
    QString text;
    if (const std::optional<dp::RepeatedSpeedup>& repeated = comparison.repeated) {
        text = vocabulary::speedup(repeated->median);
        text += rangeText(repeated->min, repeated->max, 2);
    } else {
        text = vocabulary::speedup(*comparison.speedup);
    }
    if (comparison.scaling != MeasuredScaling::none) {
        text += QLatin1Char(' ');
        text += QString::fromLatin1(measuredScalingName(comparison.scaling));
    }
    return text;
}

QString percent(double fraction)
{
    return QStringLiteral("%1%").arg(fraction * 100, 0, 'f', 0);
}

// "97% (94–101)": a repeated comparison's median and range, else the run's own.
QString efficiencyText(const RunComparison& comparison)
{
    if (const std::optional<RepeatRange>& repeated = comparison.repeatedEfficiency)
        return percent(repeated->median) + rangeText(repeated->min * 100, repeated->max * 100, 0);
    return percent(*comparison.efficiency);
}

// The settings the labels read (displayLabel) and seed groups compare, and
// the fields beside them that name and group a run: equal, an update of a
// run (its epochs, its status) changes no label.
bool sameLabelInputs(const dp::RunRecord& a, const dp::RunRecord& b)
{
    if (a.name != b.name || a.comparison_group != b.comparison_group)
        return false;
    return std::all_of(dp::config_fields().begin(), dp::config_fields().end(),
                       [&](const dp::ConfigField& field) {
                           return dp::field_text(field, a.config) == dp::field_text(field, b.config);
                       });
}

// The settings that may tell apart unnamed runs of one settings label: the
// label already names model, devices, batch and lr.
bool mayTellApart(const dp::ConfigField& field)
{
    return (field.scope & dp::ConfigField::shared) && field.name != std::string_view("model")
        && field.name != std::string_view("batch_size") && field.name != std::string_view("lr");
}

}  // namespace

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int RunsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(rows_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case RunColumn: return tr("Run (✓ on charts; double-click to rename)");
        case StatusColumn: return tr("Status");
        case DevicesColumn: return tr("Devices");
        case GlobalBatchColumn: return tr("Batch");
        case LearningRateColumn: return tr("LR");
        case SecondsPerEpochColumn: return vocabulary::secondsPerEpochUnit();
        case SpeedupColumn: return tr("Speedup");
        case EfficiencyColumn: return tr("Efficiency");
        case TestAccuracyColumn: return tr("Test acc");
        case TimeToTargetColumn: return tr("Time to %1").arg(targetAccuracy_, 0, 'f', 2);
        case SpeedupToTargetColumn: return tr("Speedup to %1").arg(targetAccuracy_, 0, 'f', 2);
        case StartedColumn: return tr("Started");
        case TagsColumn: return tr("Tags");
        case NotesColumn: return tr("Notes");
        case DeviceCpuColumn: return tr("Device CPU");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case RunColumn: return tr("Checked runs are drawn on the charts and compared with each other");
        case TagsColumn: return tr("Your tags for the run, comma-separated: double-click to edit; the filter finds them");
        case NotesColumn: return tr("Your notes on the run: double-click to edit");
        case DeviceCpuColumn:
            return tr("How busy each device's thread kept its CPU over the last epoch's training, "
                      "on average over the devices (hover a cell for each): well below 100% means "
                      "it waited, for the others, a shared core or the data");
        case GlobalBatchColumn: return tr("Samples per step, split across the devices");
        case SecondsPerEpochColumn:
            return tr("Training seconds per epoch (evaluation excluded): the median of the epochs "
                      "after the first, which includes kernel tuning and warm-up");
        case SpeedupColumn:
            return tr("Training throughput over a 1-device baseline of the same model and data: "
                      "its comparison's, else one with the same settings, else one with batch and "
                      "lr scaled down (right-click a run to choose). \"strong\": the same global "
                      "batch; \"weak\": the batch grew with the devices. A repeated comparison "
                      "shows the median and range of its repeats.");
        case EfficiencyColumn:
            return tr("Speedup divided by the device ratio: 100% is perfect linear scaling");
        case TestAccuracyColumn: return tr("Test accuracy after the last completed epoch");
        case TimeToTargetColumn:
            return tr("Training seconds until the test accuracy first reached the target");
        case SpeedupToTargetColumn:
            return tr("The baseline's time to the target over this run's: how much sooner it "
                      "gets there, which a faster epoch alone does not promise (a larger batch "
                      "may need more epochs)");
        }
    }
    return {};
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.column() == RunColumn)
        flags |= Qt::ItemIsUserCheckable | Qt::ItemIsEditable;
    if (index.column() == TagsColumn || index.column() == NotesColumn)
        flags |= Qt::ItemIsEditable;
    return flags;
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& row = rows_[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return displayText(row, index.row(), index.column());
    case Qt::EditRole:  // the run's name, tags and notes, edited in place
        if (index.column() == TagsColumn)
            return tagsText(row.record.tags);
        if (index.column() == NotesColumn)
            return QString::fromStdString(row.record.notes);
        return index.column() == RunColumn ? QVariant(displayLabel(index.row())) : QVariant();
    case Qt::UserRole:
        return number(index.row(), index.column());
    case Qt::CheckStateRole:
        if (index.column() == RunColumn)
            return row.checked ? Qt::Checked : Qt::Unchecked;
        return {};
    case Qt::DecorationRole:
        if (index.column() == RunColumn)
            return runSwatch(color(index.row()), row.past);
        return {};
    case Qt::ForegroundRole:
        // Past runs read in normal text (the Started column marks them): grey
        // would say "disabled".
        if (index.column() == StatusColumn && row.record.status == dp::RunStatus::failed)
            return QColor(0xc6, 0x28, 0x28);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= GlobalBatchColumn && index.column() <= SpeedupToTargetColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == RunColumn && groupSeeds_ && seedGroupMembers(index.row()).size() > 1) {
            QStringList members;
            for (int member : seedGroupMembers(index.row()))
                members << displayLabel(member);
            return tr("Runs with these settings but their seed:\n%1").arg(members.join(QLatin1Char('\n')));
        }
        if (index.column() == RunColumn)  // the cell elides a long name
            return displayLabel(index.row())
                   + (row.past ? tr("\nFrom the history (an earlier session or an import)") : QString())
                   + (row.record.id == chosenBaseline_ ? tr("\nThe chosen baseline") : QString());
        if (index.column() == DeviceCpuColumn && !row.record.epochs.empty()
            && !row.record.epochs.back().device_cpu.empty()) {
            const std::vector<double>& shares = row.record.epochs.back().device_cpu;
            QStringList devices;
            for (std::size_t d = 0; d < shares.size(); ++d)
                devices << tr("%1 %2%")
                               .arg(d < row.record.config.devices.size()
                                            ? QString::fromStdString(row.record.config.devices[d])
                                            : QString::number(d))
                               .arg(std::lround(100 * shares[d]));
            return devices.join(QStringLiteral(", "));
        }
        if (index.column() == NotesColumn && !row.record.notes.empty())  // the cell shows its first line
            return QString::fromStdString(row.record.notes);
        if (index.column() == StatusColumn && !row.notInHistory.isEmpty())
            return row.notInHistory;
        if (index.column() == StatusColumn && !row.record.error.empty())
            return QString::fromStdString(row.record.error);
        if (index.column() == StatusColumn)
            return statusTip(row);
        if (index.column() == DevicesColumn) {
            QStringList ids;
            for (const std::string& id : row.record.config.devices)
                ids << QString::fromStdString(id);
            return ids.join(QStringLiteral(", "));
        }
        if (index.column() == SpeedupColumn || index.column() == EfficiencyColumn
            || index.column() == SpeedupToTargetColumn) {
            const std::optional<RunComparison>& comparison = comparisons_[std::size_t(index.row())];
            if (comparison && comparison->baseline) {
                QString against = tr("against %1").arg(
                    displayLabel(int(*comparison->baseline)));
                if (row.record.busy || rows_[*comparison->baseline].record.busy)
                    against += tr(" (measured while the machine was busy: other processes took "
                                  "cores, so the speedup is not trusted)");
                if (const std::optional<dp::RepeatedSpeedup>& repeated = comparison->repeated)
                    against += tr("; the median and range of %1 repeats (this run: %2)")
                                   .arg(repeated->repeats)
                                   .arg(vocabulary::speedup(*comparison->speedup));
                if (comparison->scaling == MeasuredScaling::strong)
                    return tr("Strong scaling (the same global batch), %1").arg(against);
                if (comparison->scaling == MeasuredScaling::weak)
                    return tr("Weak scaling (the batch grew with the devices), %1").arg(against);
                return against;
            }
            if (comparison)
                return QString::fromStdString(comparison->noBaselineReason);
            return tr("Check the run to compare it");
        }
        return {};
    }
    return {};
}

QString RunsTableModel::statusText(const Row& row) const
{
    const dp::RunRecord& record = row.record;
    const int epochsDone = int(record.epochs.size());
    // A past run still "running" trains on in another process, or was
    // killed mid-way (its epochs stay); one from another machine is
    // named as last recorded.
    if (record.status == dp::RunStatus::running) {
        if (!row.past || row.process == dp::RunProcess::alive)
            return tr("running · epoch %1/%2").arg(epochsDone).arg(record.config.epochs);
        if (row.process == dp::RunProcess::elsewhere)
            return tr("last seen running on %1 · %2/%3 epochs")
                .arg(QString::fromStdString(record.host))
                .arg(epochsDone)
                .arg(record.config.epochs);
        return tr("interrupted · %1/%2 epochs").arg(epochsDone).arg(record.config.epochs);
    }
    if (record.status == dp::RunStatus::stopped)
        return tr("stopped · %1/%2 epochs").arg(epochsDone).arg(record.config.epochs);
    if (record.status == dp::RunStatus::failed)
        return tr("failed");
    return QString::fromLatin1(dp::run_status_name(record.status));
}

QVariant RunsTableModel::displayText(const Row& row, int rowIndex, int column) const
{
    if (groupSeeds_)
        if (const std::vector<int>& members = seedGroupMembers(rowIndex); members.size() > 1)
            if (const QVariant text = seedGroupText(members, column); text.isValid())
                return text;
    const dp::RunRecord& record = row.record;
    const std::optional<RunComparison>& comparison = comparisons_[std::size_t(rowIndex)];
    const int epochsDone = int(record.epochs.size());
    switch (column) {
    case RunColumn:
        return displayLabel(rowIndex);
    case StatusColumn:
        return row.notInHistory.isEmpty() ? statusText(row) : tr("%1 · not in the history").arg(statusText(row));
    case DevicesColumn:
        return record.processes > 1 ? tr("%1 (%2 processes)")
                                          .arg(record.config.devices.size())
                                          .arg(record.processes)
                                    : QString::number(record.config.devices.size());
    case GlobalBatchColumn:
        return record.config.batch_size;
    case LearningRateColumn:
        return QString::number(double(record.config.lr), 'g', 4);
    case SecondsPerEpochColumn: {
        const QVariant seconds = number(rowIndex, column);
        return seconds.isValid() ? QString::number(seconds.toDouble(), 'f', 2) : dash();
    }
    case SpeedupColumn:
        return comparison && comparison->speedup ? speedupText(*comparison) : dash();
    case EfficiencyColumn:
        return comparison && comparison->efficiency ? efficiencyText(*comparison) : dash();
    case TestAccuracyColumn:
        return epochsDone == 0 ? dash() : vocabulary::accuracy(record.epochs.back().test_acc);
    case TimeToTargetColumn:
        return comparison && comparison->secondsToTarget
            ? tr("%1 s").arg(*comparison->secondsToTarget, 0, 'f', 1)
            : dash();
    case SpeedupToTargetColumn:
        return comparison && comparison->speedupToTarget
            ? vocabulary::speedup(*comparison->speedupToTarget)
            : dash();
    case StartedColumn:
        return startedText(record, row.past);
    case TagsColumn:
        return tagsText(record.tags);
    case NotesColumn:
        return notesSummary(record.notes);
    case DeviceCpuColumn: {
        const QVariant share = number(rowIndex, column);
        return share.isValid() ? tr("%1%").arg(std::lround(100 * share.toDouble())) : dash();
    }
    }
    return {};
}

QVariant RunsTableModel::number(int rowIndex, int column) const
{
    const Row& row = rows_[std::size_t(rowIndex)];
    const dp::RunRecord& record = row.record;
    const std::optional<RunComparison>& comparison = comparisons_[std::size_t(rowIndex)];
    const auto optionalNumber = [](const std::optional<double>& value) {
        return value ? QVariant(*value) : QVariant();
    };
    switch (column) {
    case DevicesColumn: return int(record.config.devices.size());
    case DeviceCpuColumn: {
        if (record.epochs.empty() || record.epochs.back().device_cpu.empty())
            return {};
        const std::vector<double>& shares = record.epochs.back().device_cpu;
        double sum = 0;
        for (const double share : shares)
            sum += share;
        return sum / double(shares.size());
    }
    case GlobalBatchColumn: return record.config.batch_size;
    case LearningRateColumn: return double(record.config.lr);
    case SecondsPerEpochColumn: {
        if (record.epochs.empty())
            return {};
        // Unchecked rows have no comparison; the median is the same arithmetic.
        return comparison ? comparison->secondsPerEpoch : optionalNumber(row.secondsPerEpoch);
    }
    // A repeated comparison's median, as the cell shows.
    case SpeedupColumn:
        if (comparison && comparison->repeated && comparison->speedup)
            return comparison->repeated->median;
        return comparison ? optionalNumber(comparison->speedup) : QVariant();
    case EfficiencyColumn:
        if (comparison && comparison->repeatedEfficiency)
            return comparison->repeatedEfficiency->median;
        return comparison ? optionalNumber(comparison->efficiency) : QVariant();
    case TestAccuracyColumn:
        return record.epochs.empty() ? QVariant() : QVariant(record.epochs.back().test_acc);
    case TimeToTargetColumn:
        return comparison ? optionalNumber(comparison->secondsToTarget) : QVariant();
    case SpeedupToTargetColumn:
        return comparison ? optionalNumber(comparison->speedupToTarget) : QVariant();
    }
    return {};
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (index.isValid() && role == Qt::EditRole
        && (index.column() == TagsColumn || index.column() == NotesColumn))
        return annotate(index, value.toString());
    if (!index.isValid() || index.column() != RunColumn)
        return false;
    if (role == Qt::EditRole) {
        dp::RunRecord& record = rows_[std::size_t(index.row())].record;
        const std::string name = value.toString().trimmed().toStdString();
        // Typing the shown label back changes nothing.
        if (name == displayLabel(index.row()).toStdString() || name == record.name)
            return false;
        if (const std::string problem = dp::run_name_problem(name); !problem.empty()) {
            emit renameRefused(tr("Could not rename: the name %1").arg(QString::fromStdString(problem)));
            return false;
        }
        record.name = name;
        runsChanged();  // the other runs of its label may read apart differently now
        emit dataChanged(this->index(0, RunColumn), this->index(rowCount() - 1, RunColumn));
        emit runRenamed(record);
        return true;
    }
    if (role != Qt::CheckStateRole)
        return false;
    // A seed group's row checks or unchecks all its runs.
    for (int member : seedGroupRows(index.row()))
        setChecked(member, value.value<Qt::CheckState>() == Qt::Checked);
    return true;
}

QString RunsTableModel::displayLabel(int row) const
{
    if (labelsStale_)
        computeLabels();
    return labels_[std::size_t(row)];
}

// Every row's label in one pass, linear in the runs: named runs read as their
// name; unnamed ones as their settings label, then each setting (of the
// schema, config_fields) in which the unnamed runs of that label differ, then
// their repeat in a repeated comparison. A setting differs within a label's
// runs when they hold more than one value of it: then each of them has
// another run with a value other than its own.
void RunsTableModel::computeLabels() const
{
    const std::size_t count = rows_.size();
    labels_.assign(count, QString());
    std::unordered_map<std::string_view, std::vector<std::size_t>> unnamedByLabel;
    for (std::size_t i = 0; i < count; ++i) {
        const dp::RunRecord& record = rows_[i].record;
        if (!record.name.empty()) {
            labels_[i] = QString::fromStdString(record.name);
            continue;
        }
        const std::string& label = rows_[i].settingsLabel;
        labels_[i] = QString::fromStdString(label);
        unnamedByLabel[label].push_back(i);
    }
    std::vector<std::string> texts;
    for (const auto& [label, members] : unnamedByLabel) {
        if (members.size() < 2)
            continue;
        for (const dp::ConfigField& field : dp::config_fields()) {
            if (!mayTellApart(field))
                continue;
            texts.clear();
            for (std::size_t member : members)
                texts.push_back(dp::field_text(field, rows_[member].record.config));
            if (std::all_of(texts.begin(), texts.end(), [&](const std::string& text) { return text == texts.front(); }))
                continue;
            for (std::size_t k = 0; k < members.size(); ++k)
                labels_[members[k]] += QStringLiteral(" · %1 %2").arg(QString::fromLatin1(field.label),
                                                                       QString::fromStdString(texts[k]));
        }
    }
    // The runs of a repeated comparison share every setting: only the
    // repeat tells them apart (comparisonRepeat: the order among the runs of
    // its group with its device count, when there are several).
    std::map<std::pair<std::string, int>, std::vector<std::size_t>> repeats;
    for (std::size_t i = 0; i < count; ++i)
        if (const dp::RunRecord& record = rows_[i].record; !record.comparison_group.empty())
            repeats[{record.comparison_group, record.device_count()}].push_back(i);
    for (const auto& [group, members] : repeats) {
        if (members.size() < 2)
            continue;
        for (std::size_t k = 0; k < members.size(); ++k)
            if (rows_[members[k]].record.name.empty())
                labels_[members[k]] += tr(" · repeat %1").arg(k + 1);
    }
    derivedWork_.rowsLabelled += count;
    labelsStale_ = false;
}

dp::RunRecord RunsTableModel::labelledRecord(int row) const
{
    dp::RunRecord record = rows_[std::size_t(row)].record;
    record.name = displayLabel(row).toStdString();
    return record;
}

void RunsTableModel::setRecord(Row& row, const dp::RunRecord& record)
{
    row.record = record;
    row.settingsLabel = record.settings_label();
    row.secondsPerEpoch = record.epochs.empty()
        ? std::nullopt
        : std::optional<double>(record.summary().epoch_time().median);
}

QString RunsTableModel::statusTip(const Row& row) const
{
    if (!row.past || row.record.status != dp::RunStatus::running)
        return {};
    const QString pid = QString::number(row.record.pid);
    switch (row.process) {
    case dp::RunProcess::alive:
        return tr("Trained by process %1 (%2) on this machine").arg(pid, QString::fromStdString(row.record.source));
    case dp::RunProcess::elsewhere:
        return tr("Recorded as running by process %1 on %2 after these epochs; this machine cannot "
                  "tell whether it still runs")
            .arg(pid, QString::fromStdString(row.record.host));
    case dp::RunProcess::gone:
        return tr("Its process (%1) ended without recording the run's end: killed, crashed, or "
                  "the machine went down. Its finished epochs are kept")
            .arg(pid);
    case dp::RunProcess::unknown:
        break;
    }
    return tr("Recorded as running by a process this history does not name; its finished epochs "
              "are kept");
}

void RunsTableModel::upsert(const dp::RunRecord& record, bool past)
{
    const dp::RunProcess process =
        past && record.status == dp::RunStatus::running ? dp::run_process(record) : dp::RunProcess::unknown;
    const int existing = rowOf(record.id);
    if (existing < 0) {
        upsert(std::vector<dp::RunRecord>{record}, past);
        return;
    }
    Row& row = rows_[std::size_t(existing)];
    dp::RunRecord updated = record;
    // The running run's updates come without the name the user gave it here.
    if (updated.name.empty())
        updated.name = row.record.name;
    const bool relabel = !sameLabelInputs(row.record, updated);
    setRecord(row, updated);
    row.process = process;
    if (relabel) {
        runsChanged();
        emit dataChanged(index(0, RunColumn), index(rowCount() - 1, RunColumn));
    }
    emit dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
    recompare();
}

void RunsTableModel::upsert(const std::vector<dp::RunRecord>& records, bool past,
                            const std::unordered_set<std::string>& checkedIds)
{
    std::vector<const dp::RunRecord*> added;
    std::unordered_map<std::string, std::size_t> addedById;
    for (const dp::RunRecord& record : records) {
        if (rowById_.count(record.id)) {
            upsert(record, past);
        } else if (const auto twice = addedById.find(record.id); twice != addedById.end()) {
            added[twice->second] = &record;  // the later record of one run wins, as upsert() does
        } else {
            addedById.emplace(record.id, added.size());
            added.push_back(&record);
        }
    }
    if (added.empty())
        return;
    const int first = rowCount();
    std::vector<int> checkedPast;
    beginInsertRows({}, first, first + int(added.size()) - 1);
    rows_.reserve(rows_.size() + added.size());
    for (const dp::RunRecord* record : added) {
        Row row;
        row.past = past;
        row.checked = checkedIds.count(record->id) || (!past && checkedIds.empty());
        row.colorIndex = colorsUsed_++;
        setRecord(row, *record);
        if (past && record->status == dp::RunStatus::running)
            row.process = dp::run_process(*record);
        if (past && row.checked)
            checkedPast.push_back(int(rows_.size()));
        rowById_.emplace(record->id, int(rows_.size()));
        rows_.push_back(std::move(row));
        comparisons_.emplace_back();
    }
    runsChanged();
    endInsertRows();
    recompare();
    for (int row : checkedPast)
        emit checkedChanged(rows_[std::size_t(row)].record, true);
}

void RunsTableModel::setNotInHistory(const std::string& id, const QString& whereKept)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    rows_[std::size_t(row)].notInHistory = whereKept;
    emit dataChanged(index(row, StatusColumn), index(row, StatusColumn));
}

void RunsTableModel::setChosenBaseline(const std::string& id)
{
    if (id == chosenBaseline_)
        return;
    chosenBaseline_ = id;
    recompare();
}

void RunsTableModel::remove(const std::string& id)
{
    remove(std::vector<std::string>{id});
}

void RunsTableModel::remove(const std::vector<std::string>& ids)
{
    std::vector<int> doomed;
    for (const std::string& id : ids)
        if (const int row = rowOf(id); row >= 0)
            doomed.push_back(row);
    if (doomed.empty())
        return;
    std::sort(doomed.begin(), doomed.end());
    doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
    // Contiguous rows go in one removal, the last first so that the earlier
    // rows keep their numbers; erase-remove keeps the whole pass linear.
    std::vector<bool> gone(rows_.size(), false);
    for (int row : doomed)
        gone[std::size_t(row)] = true;
    std::vector<std::pair<int, int>> spans;  // [first, last]
    for (int row : doomed) {
        if (!spans.empty() && spans.back().second == row - 1)
            spans.back().second = row;
        else
            spans.emplace_back(row, row);
    }
    // Many scattered spans would cost views a pass each: then a reset.
    const bool reset = spans.size() > 16;
    if (reset)
        beginResetModel();
    if (reset) {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            if (gone[i])
                continue;
            if (kept != i) {
                rows_[kept] = std::move(rows_[i]);
                comparisons_[kept] = std::move(comparisons_[i]);
            }
            ++kept;
        }
        rows_.resize(kept);
        comparisons_.resize(kept);
        runsChanged();
        indexIds();
        endResetModel();
    } else {
        for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
            beginRemoveRows({}, span->first, span->second);
            rows_.erase(rows_.begin() + span->first, rows_.begin() + span->second + 1);
            comparisons_.erase(comparisons_.begin() + span->first, comparisons_.begin() + span->second + 1);
            runsChanged();
            indexIds();
            endRemoveRows();
        }
    }
    recompare();
}

int RunsTableModel::rowOf(const std::string& id) const
{
    const auto it = rowById_.find(id);
    return it == rowById_.end() ? -1 : it->second;
}

void RunsTableModel::runsChanged()
{
    labelsStale_ = true;
    seedGroupsStale_ = true;
}

void RunsTableModel::indexIds()
{
    rowById_.clear();
    for (std::size_t i = 0; i < rows_.size(); ++i)
        rowById_.emplace(rows_[i].record.id, int(i));
}

QColor RunsTableModel::color(int row) const
{
    return runColor(rows_[std::size_t(row)].colorIndex);
}

void RunsTableModel::setChecked(int row, bool checked)
{
    Row& target = rows_[std::size_t(row)];
    if (target.checked == checked)
        return;
    target.checked = checked;
    emit dataChanged(index(row, RunColumn), index(row, RunColumn), {Qt::CheckStateRole});
    emit checkedChanged(target.record, checked);
    recompare();
}

std::vector<dp::RunRecord> RunsTableModel::checkedRecords() const
{
    std::vector<dp::RunRecord> records;
    for (const Row& row : rows_) {
        if (row.checked)
            records.push_back(row.record);
    }
    return records;
}

std::optional<RunComparison> RunsTableModel::comparison(int row) const
{
    return comparisons_[std::size_t(row)];
}

void RunsTableModel::setTargetAccuracy(double accuracy)
{
    targetAccuracy_ = accuracy;
    emit headerDataChanged(Qt::Horizontal, TimeToTargetColumn, SpeedupToTargetColumn);
    recompare();
}

void RunsTableModel::recompare()
{
    // Only checked runs take part, so a stale past run never becomes the
    // baseline of new ones unless the user asks for it.
    std::vector<std::size_t> checkedRows;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        if (rows_[i].checked)
            checkedRows.push_back(i);
    }
    const std::vector<RunComparison> results = compareRuns(checkedRecords(), targetAccuracy_, chosenBaseline_);
    // The rows compared before or now: the only ones whose numbers change.
    std::vector<bool> changed(rows_.size(), false);
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        changed[i] = comparisons_[i].has_value();
        comparisons_[i].reset();
    }
    for (std::size_t i = 0; i < checkedRows.size(); ++i) {
        RunComparison result = results[i];
        // compareRuns counts in the list it was given; the table counts rows.
        if (result.baseline)
            result.baseline = checkedRows[*result.baseline];
        comparisons_[checkedRows[i]] = result;
        changed[checkedRows[i]] = true;
    }
    // One signal per stretch of such rows: a sorted view re-sorts only them.
    for (std::size_t first = 0; first < changed.size();) {
        if (!changed[first]) {
            ++first;
            continue;
        }
        std::size_t last = first;
        while (last + 1 < changed.size() && changed[last + 1])
            ++last;
        emit dataChanged(index(int(first), 0), index(int(last), ColumnCount - 1));
        first = last + 1;
    }
    emit comparisonsChanged();
}

std::string RunsTableModel::latestCheckedComparisonGroup() const
{
    const auto allChecked = [this](const std::string& group) {
        return std::all_of(rows_.begin(), rows_.end(), [&](const Row& row) {
            return row.record.comparison_group != group || row.checked;
        });
    };
    const Row* latest = nullptr;
    for (const Row& row : rows_)
        if (!row.record.comparison_group.empty() && allChecked(row.record.comparison_group)
            && (!latest || row.record.started_at >= latest->record.started_at))
            latest = &row;
    return latest ? latest->record.comparison_group : std::string();
}

void RunsTableModel::setGroupSeeds(bool grouped)
{
    if (groupSeeds_ == grouped)
        return;
    groupSeeds_ = grouped;
    emit seedGroupingChanged(grouped);
    if (!rows_.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

// The seed groups of all rows in one pass: one key per run, grouped by a hash map.
void RunsTableModel::computeSeedGroups() const
{
    seedGroupOf_.assign(rows_.size(), 0);
    seedGroupMembers_.clear();
    std::unordered_map<std::string, int> groupByKey;
    for (std::size_t row = 0; row < rows_.size(); ++row) {
        const auto [group, added] =
            groupByKey.emplace(seedGroupKey(rows_[row].record), int(seedGroupMembers_.size()));
        if (added)
            seedGroupMembers_.emplace_back();
        seedGroupMembers_[std::size_t(group->second)].push_back(int(row));
        seedGroupOf_[row] = group->second;
    }
    derivedWork_.seedKeysComputed += rows_.size();
    seedGroupsStale_ = false;
}

const std::vector<int>& RunsTableModel::seedGroupMembers(int row) const
{
    if (seedGroupsStale_)
        computeSeedGroups();
    return seedGroupMembers_[std::size_t(seedGroupOf_[std::size_t(row)])];
}

std::vector<int> RunsTableModel::seedGroupRows(int row) const
{
    if (!groupSeeds_)
        return {row};
    return seedGroupMembers(row);
}

bool RunsTableModel::isShownWhenGrouped(int row) const
{
    return seedGroupMembers(row).front() == row;
}

std::vector<std::vector<int>> RunsTableModel::seedGroups() const
{
    std::vector<std::vector<int>> groups;
    if (!groupSeeds_)
        return groups;
    if (seedGroupsStale_)
        computeSeedGroups();
    for (const std::vector<int>& members : seedGroupMembers_)
        if (members.size() > 1)
            groups.push_back(members);
    return groups;
}

// "1.42 (1.38–1.51)": the median and range of the members' values; a dash
// when none has one.
QVariant RunsTableModel::seedGroupText(const std::vector<int>& members, int column) const
{
    std::vector<double> values;
    const auto spreadText = [&values](int decimals, QString (*median)(double)) -> QVariant {
        const std::optional<Spread> spread = spreadOf(values);
        if (!spread)
            return dash();
        return median(spread->median) + rangeText(spread->min, spread->max, decimals);
    };
    switch (column) {
    case RunColumn:
        return tr("%1 · %2 seeds")
            .arg(QString::fromStdString(rows_[std::size_t(members.front())].record.settings_label()))
            .arg(members.size());
    case SecondsPerEpochColumn:
        for (int member : members)
            if (const QVariant seconds = number(member, column); seconds.isValid())
                values.push_back(seconds.toDouble());
        return spreadText(2, [](double seconds) { return QString::number(seconds, 'f', 2); });
    case SpeedupColumn:
        for (int member : members)
            if (const auto& comparison = comparisons_[std::size_t(member)]; comparison && comparison->speedup)
                values.push_back(*comparison->speedup);
        return spreadText(2, vocabulary::speedup);
    case TestAccuracyColumn:
        for (int member : members)
            if (const dp::RunRecord& record = rows_[std::size_t(member)].record; !record.epochs.empty())
                values.push_back(record.epochs.back().test_acc);
        return spreadText(3, vocabulary::accuracy);
    default:
        return {};
    }
}

bool RunsTableModel::annotate(const QModelIndex& index, const QString& text)
{
    dp::RunRecord& record = rows_[std::size_t(index.row())].record;
    std::string problem;
    if (index.column() == TagsColumn) {
        std::vector<std::string> tags = tagsFromText(text);
        if (tags == record.tags)
            return false;
        problem = dp::run_tags_problem(tags);
        if (problem.empty())
            record.tags = std::move(tags);
        else
            problem = tr("Could not tag the run: it %1").arg(QString::fromStdString(problem)).toStdString();
    } else {
        const std::string notes = text.trimmed().toStdString();
        if (notes == record.notes)
            return false;
        problem = dp::run_notes_problem(notes);
        if (problem.empty())
            record.notes = notes;
        else
            problem = tr("Could not keep the notes: they %1").arg(QString::fromStdString(problem)).toStdString();
    }
    if (!problem.empty()) {
        emit renameRefused(QString::fromStdString(problem));
        return false;
    }
    emit dataChanged(index, index);
    emit runAnnotated(record);
    return true;
}
