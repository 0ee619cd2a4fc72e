#include "runs_table_model.h"
#include "run_annotations.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include "run_palette.h"
#include "seed_groups.h"

#include "config/config_fields.h"
#include "record/run_record_rules.h"

namespace {

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
