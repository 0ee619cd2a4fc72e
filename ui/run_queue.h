#pragma once

#include <QAbstractListModel>

#include <deque>
#include <optional>

#include "train/train_config.h"

// The runs waiting for the one in progress, first to start first. Each row
// reads like the run's chart label, so the queue shows what comes next.
class RunQueue : public QAbstractListModel {
    Q_OBJECT

public:
    using QAbstractListModel::QAbstractListModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

    void enqueue(const dp::TrainConfig& config);
    // The next run, removed from the queue; empty when none waits.
    std::optional<dp::TrainConfig> takeNext();
    void clear();
    bool isEmpty() const { return pending_.empty(); }

private:
    std::deque<dp::TrainConfig> pending_;
};
