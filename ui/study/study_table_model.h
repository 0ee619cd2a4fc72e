#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "study/study_table.h"

// A study's table (study/study_table.h) for a QTableView: one row per grid
// point, the columns dp-train --sweep prints.
class StudyTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Devices, BatchSize, Lr, SecondsPerEpoch, Speedup, Verdict, Efficiency, TestAccuracy, ColumnCount };

    explicit StudyTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setRows(std::vector<dp::StudyRow> rows);
    const std::vector<dp::StudyRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    // Qt::DisplayRole: the text; Qt::UserRole: the number a column sorts by.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<dp::StudyRow> rows_;
};
