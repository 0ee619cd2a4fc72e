#pragma once

#include <QWidget>

#include <string>
#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class RunsTableModel;

// The runs table with what acts on it: sorting by a column, a filter, the
// target accuracy of its "time to" column, and deleting runs from the history.
class RunsPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunsPanel(RunsTableModel* model, QWidget* parent = nullptr);

    // The run that may not be deleted (the one training); empty: none.
    void setBusyRun(const std::string& id);
    // What is wrong with the history (it cannot be opened, rows of it were
    // left out), in red above the table, where the runs would be; empty
    // hides it.
    void showHistoryProblem(const QString& text);
    QString historyProblem() const;
    // What a right-click on the model's row `row` offers: use that run as
    // every run's baseline, or go back to the automatic choice.
    void fillRunMenu(QMenu& menu, int row);

signals:
    void deleteRequested(const std::vector<std::string>& ids);

private:
    // The proxy the table shows and the filter box that narrows it.
    void setUpFilter();
    std::vector<std::string> selectedIds() const;
    void updateDeleteButton();
    void showRunMenu(const QPoint& position);

    RunsTableModel* model_;
    QSortFilterProxyModel* shownRuns_;  // sorted and filtered, as the table shows them
    QLineEdit* filterEdit_;
    QCheckBox* groupSeedsBox_;
    QTableView* table_;
    QDoubleSpinBox* targetSpin_;
    QPushButton* deleteButton_;
    QLabel* historyProblem_;
    std::string busyRun_;
};
