#include "run_queue.h"

#include <algorithm>

#include "record/run_record.h"

int RunQueue::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(pending_.size());
}

QVariant RunQueue::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || role != Qt::DisplayRole)
        return {};
    const QueuedRun& run = pending_[std::size_t(index.row())];
    const dp::TrainConfig& config = run.config;
    dp::RunRecord preview;
    preview.config = config;
    preview.name = run.name;
    return tr("%1. %2 · %3 epochs")
        .arg(index.row() + 1)
        .arg(QString::fromStdString(preview.label()))
        .arg(config.epochs);
}

void RunQueue::enqueue(QueuedRun run)
{
    const int row = rowCount();
    beginInsertRows({}, row, row);
    pending_.push_back(std::move(run));
    endInsertRows();
}

std::optional<QueuedRun> RunQueue::takeNext()
{
    if (pending_.empty())
        return std::nullopt;
    beginRemoveRows({}, 0, 0);
    QueuedRun next = std::move(pending_.front());
    pending_.pop_front();
    endRemoveRows();
    // The numbers of the remaining rows changed.
    if (!pending_.empty())
        emit dataChanged(index(0), index(rowCount() - 1));
    return next;
}

void RunQueue::removeStudy(int study)
{
    const auto ofStudy = [study](const QueuedRun& run) { return run.study == study; };
    const auto first = std::find_if(pending_.begin(), pending_.end(), ofStudy);
    if (first == pending_.end())
        return;
    const auto last = std::find_if_not(first, pending_.end(), ofStudy);
    beginRemoveRows({}, int(first - pending_.begin()), int(last - pending_.begin()) - 1);
    pending_.erase(first, last);
    endRemoveRows();
    if (!pending_.empty())
        emit dataChanged(index(0), index(rowCount() - 1));
}

bool RunQueue::holdsStudy(int study) const
{
    return std::any_of(pending_.begin(), pending_.end(), [&](const QueuedRun& run) { return run.study == study; });
}

bool RunQueue::holdsGroup(const std::string& group) const
{
    return std::any_of(pending_.begin(), pending_.end(),
                       [&](const QueuedRun& run) { return run.comparisonGroup == group; });
}

void RunQueue::clear()
{
    beginResetModel();
    pending_.clear();
    endResetModel();
}
