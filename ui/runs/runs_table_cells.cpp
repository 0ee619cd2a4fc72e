#include "runs_table_model.h"

#include <QDateTime>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <cmath>

#include "run_annotations.h"
#include "run_palette.h"
#include "run_swatch.h"
#include "seed_groups.h"
#include "vocabulary.h"

#include "record/run_record_rules.h"

// What the runs table's cells and headers read: RunsTableModel's texts,
// numbers, tooltips and colours per column, apart from the rows it keeps
// (runs_table_model.cpp).

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

}  // namespace

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
