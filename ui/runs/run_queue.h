#pragma once

#include <QAbstractListModel>

#include <deque>
#include <optional>
#include <string>

#include "config/train_config.h"

// A run waiting to start, with the comparison it belongs to (RunRecord::comparison_group),
// its name (RunRecord::name; empty: labelled by its settings) and the study
// it is a run of (RunManager::enqueue's number).
struct QueuedRun {
    dp::TrainConfig config;
    std::string comparisonGroup;
    std::string name;
    int study = 0;
};

// The runs waiting for the one in progress, first to start first. Each row
// reads like the run's chart label, so the queue shows what comes next.
class RunQueue : public QAbstractListModel {
    Q_OBJECT

public:
    using QAbstractListModel::QAbstractListModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

    void enqueue(QueuedRun run);
    // The next run, removed from the queue; empty when none waits.
    std::optional<QueuedRun> takeNext();
    // The runs of `study` still waiting, removed: it ended early (a run
    // failed or was stopped). A study's runs are adjacent.
    void removeStudy(int study);
    void clear();
    bool isEmpty() const { return pending_.empty(); }
    // The run waiting at `row`, 0 starting next.
    const QueuedRun& at(int row) const { return pending_.at(std::size_t(row)); }
    // Whether a run of `study` still waits.
    bool holdsStudy(int study) const;
    // Whether a run of comparison `group` still waits.
    bool holdsGroup(const std::string& group) const;

private:
    std::deque<QueuedRun> pending_;
};
