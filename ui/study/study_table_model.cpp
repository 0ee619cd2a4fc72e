#include "study_table_model.h"

#include <cmath>

void StudyTableModel::setRows(std::vector<dp::StudyRow> rows)
{
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int StudyTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(rows_.size());
}

int StudyTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StudyTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(rows_.size()))
        return {};
    const dp::StudyRow& row = rows_[std::size_t(index.row())];
    const bool hasSpeedup = std::isfinite(row.speedup);
    if (role == Qt::UserRole) {
        switch (index.column()) {
        case Devices: return row.devices;
        case BatchSize: return row.batch_size;
        case Lr: return double(row.lr);
        case SecondsPerEpoch: return row.seconds_per_epoch;
        case Speedup: return hasSpeedup ? QVariant(row.speedup) : QVariant();
        case Efficiency: return hasSpeedup ? QVariant(row.efficiency) : QVariant();
        case TestAccuracy: return row.final_test_acc;
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Verdict ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                         : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && row.busy)
        return tr("Measured while other processes kept the machine busy: its time is not trusted");
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Devices: return row.devices;
    case BatchSize: return row.batch_size;
    case Lr: return QString::number(double(row.lr), 'g', 6);
    case SecondsPerEpoch:
        return QStringLiteral("%1 (%2–%3)%4")
            .arg(row.seconds_per_epoch, 0, 'f', 3)
            .arg(row.seconds_min, 0, 'f', 3)
            .arg(row.seconds_max, 0, 'f', 3)
            .arg(row.busy ? QStringLiteral(" busy") : QString());
    case Speedup:
        if (!hasSpeedup)
            return QStringLiteral("–");
        if (dp::is_baseline(row))
            return tr("baseline");
        if (!dp::has_speedup_range(row.speedup_min, row.speedup_max))
            return tr("%1× (no range)").arg(row.speedup, 0, 'f', 2);
        return QStringLiteral("%1× (%2–%3)")
            .arg(row.speedup, 0, 'f', 2)
            .arg(row.speedup_min, 0, 'f', 2)
            .arg(row.speedup_max, 0, 'f', 2);
    case Verdict:
        return hasSpeedup && !dp::is_baseline(row) ? QString(dp::speedup_verdict_text(row.verdict())) : QString();
    case Efficiency:
        return hasSpeedup ? QStringLiteral("%1%").arg(100 * row.efficiency, 0, 'f', 0) : QStringLiteral("–");
    case TestAccuracy: return QString::number(row.final_test_acc, 'f', 3);
    default: return {};
    }
}

QVariant StudyTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Devices: return tr("Devices");
    case BatchSize: return tr("Batch");
    case Lr: return tr("LR");
    case SecondsPerEpoch: return tr("s/epoch (range)");
    case Speedup: return tr("Speedup (range)");
    case Verdict: return tr("Verdict");
    case Efficiency: return tr("Efficiency");
    case TestAccuracy: return tr("Test acc");
    default: return {};
    }
}
