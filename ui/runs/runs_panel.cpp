#include "runs_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "runs_table_model.h"

namespace {

// The runs as the table shows them: sorted by a clicked column, numbers as
// numbers (9 before 10; a dash, no number, first), text as text; and only
// the rows with the filter's text somewhere in them.
class RunsSortFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    // Re-reads which rows the grouping hides.
    void regroup() { invalidateFilter(); }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override
    {
        const auto* runs = static_cast<const RunsTableModel*>(sourceModel());
        if (runs->groupSeeds() && !runs->isShownWhenGrouped(sourceRow))
            return false;
        return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
    }

    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override
    {
        const QVariant a = left.data(Qt::UserRole);
        const QVariant b = right.data(Qt::UserRole);
        if (a.isValid() || b.isValid())
            return !a.isValid() ? b.isValid() : b.isValid() && a.toDouble() < b.toDouble();
        return QString::localeAwareCompare(left.data().toString(), right.data().toString()) < 0;
    }
};

}  // namespace

RunsPanel::RunsPanel(RunsTableModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      shownRuns_(new RunsSortFilter(this)),
      filterEdit_(new QLineEdit(this)),
      groupSeedsBox_(new QCheckBox(tr("Group seeds"), this)),
      table_(new QTableView(this)),
      targetSpin_(new QDoubleSpinBox(this)),
      deleteButton_(new QPushButton(tr("Delete from history"), this)),
      historyProblem_(new QLabel(this))
{
    setUpFilter();
    table_->setObjectName(QStringLiteral("runsTable"));
    table_->setModel(shownRuns_);
    // In the order the runs started until a header is clicked.
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);
    // The run's name is what tells rows apart: it keeps a readable width
    // (the user may drag it), the numbers take what they need, and the last
    // column fills the rest; a narrow window scrolls sideways rather than
    // squeezing names to "L...".
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(RunsTableModel::RunColumn,
                                                     QHeaderView::Interactive);
    table_->horizontalHeader()->resizeSection(RunsTableModel::RunColumn, 300);
    table_->horizontalHeader()->setStretchLastSection(true);
    // Names elide at their end (the tooltip has them whole): a label's first
    // part, the model and devices, is what is read first.
    table_->setTextElideMode(Qt::ElideRight);
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table_, &QWidget::customContextMenuRequested, this, &RunsPanel::showRunMenu);

    targetSpin_->setObjectName(QStringLiteral("targetAccuracySpin"));
    targetSpin_->setRange(0.05, 1.0);
    targetSpin_->setSingleStep(0.05);
    targetSpin_->setDecimals(2);
    targetSpin_->setValue(model->targetAccuracy());
    targetSpin_->setToolTip(tr("The test accuracy whose first arrival the \"Time to\" column times"));
    deleteButton_->setObjectName(QStringLiteral("deleteRunsButton"));
    deleteButton_->setToolTip(tr("Remove the selected runs from the table and the history database"));

    // One short line; how speedups are measured is a hover away.
    auto* hint = new QLabel(tr("Check runs to draw and compare them. Hover a dash to see why a run "
                               "has no speedup; right-click a run to make it the baseline."),
                            this);
    hint->setToolTip(tr("A speedup is against a checked 1-device run with the same model, data, "
                        "samples, epochs and seed, at the same global batch or one scaled with the "
                        "devices."));
    hint->setForegroundRole(QPalette::PlaceholderText);
    hint->setWordWrap(true);

    // The hint on a row of its own, the width of the panel: beside the
    // controls, a 1024-px window squeezed it to three words a line.
    auto* controls = new QHBoxLayout;
    controls->addWidget(filterEdit_, 1);
    controls->addWidget(groupSeedsBox_);
    controls->addWidget(new QLabel(tr("Target accuracy"), this));
    controls->addWidget(targetSpin_);
    controls->addWidget(deleteButton_);

    historyProblem_->setObjectName(QStringLiteral("historyProblem"));
    historyProblem_->setStyleSheet(QStringLiteral("color: #c62828;"));
    historyProblem_->setWordWrap(true);
    historyProblem_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    historyProblem_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(hint);
    layout->addLayout(controls);
    layout->addWidget(historyProblem_);
    layout->addWidget(table_, 1);

    connect(targetSpin_, &QDoubleSpinBox::valueChanged, model, &RunsTableModel::setTargetAccuracy);
    connect(deleteButton_, &QPushButton::clicked, this,
            [this] { emit deleteRequested(selectedIds()); });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunsPanel::updateDeleteButton);
    updateDeleteButton();
}

void RunsPanel::setUpFilter()
{
    shownRuns_->setSourceModel(model_);
    shownRuns_->setFilterKeyColumn(-1);  // any column
    shownRuns_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    filterEdit_->setObjectName(QStringLiteral("runsFilter"));
    filterEdit_->setPlaceholderText(tr("Filter runs"));
    filterEdit_->setClearButtonEnabled(true);
    filterEdit_->setToolTip(tr("Show only the runs with this text in their row: a model, "
                               "\"2×\", a status, a date"));
    connect(filterEdit_, &QLineEdit::textChanged, shownRuns_,
            &QSortFilterProxyModel::setFilterFixedString);

    groupSeedsBox_->setObjectName(QStringLiteral("groupSeedsBox"));
    groupSeedsBox_->setToolTip(tr("One row for the runs that differ only in their seed: the median "
                                  "and range of their results; the charts draw the median with "
                                  "a band from the lowest to the highest"));
    groupSeedsBox_->setChecked(model_->groupSeeds());
    connect(groupSeedsBox_, &QCheckBox::toggled, model_, &RunsTableModel::setGroupSeeds);
    auto* sorter = static_cast<RunsSortFilter*>(shownRuns_);
    connect(model_, &RunsTableModel::seedGroupingChanged, sorter, &RunsSortFilter::regroup);
    connect(model_, &QAbstractItemModel::rowsRemoved, sorter, &RunsSortFilter::regroup);
}

void RunsPanel::setBusyRun(const std::string& id)
{
    busyRun_ = id;
    updateDeleteButton();
}

void RunsPanel::showHistoryProblem(const QString& text)
{
    historyProblem_->setText(text);
    historyProblem_->setVisible(!text.isEmpty());
}

QString RunsPanel::historyProblem() const
{
    return historyProblem_->text();
}

std::vector<std::string> RunsPanel::selectedIds() const
{
    std::vector<std::string> ids;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows())
        ids.push_back(model_->record(shownRuns_->mapToSource(index).row()).id);
    return ids;
}

void RunsPanel::showRunMenu(const QPoint& position)
{
    const QModelIndex index = table_->indexAt(position);
    if (!index.isValid())
        return;
    QMenu menu(this);
    fillRunMenu(menu, shownRuns_->mapToSource(index).row());
    menu.exec(table_->viewport()->mapToGlobal(position));
}

void RunsPanel::fillRunMenu(QMenu& menu, int row)
{
    const dp::RunRecord& record = model_->record(row);
    const std::string id = record.id;
    QAction* use = menu.addAction(tr("Use as baseline"));
    use->setObjectName(QStringLiteral("useAsBaselineAction"));
    use->setCheckable(true);
    use->setChecked(model_->chosenBaseline() == id);
    const bool oneDevice = record.device_count() == 1 && record.processes == 1;
    use->setEnabled(oneDevice);
    use->setToolTip(oneDevice ? tr("Compare every checked run with this one where it is a fair "
                                   "baseline (same model, data, epochs and seed)")
                              : tr("A baseline runs on 1 device"));
    connect(use, &QAction::toggled, model_,
            [this, id](bool on) { model_->setChosenBaseline(on ? id : std::string()); });
    QAction* automatic = menu.addAction(tr("Choose baselines automatically"));
    automatic->setEnabled(!model_->chosenBaseline().empty());
    connect(automatic, &QAction::triggered, model_, [this] { model_->setChosenBaseline({}); });
    menu.setToolTipsVisible(true);
}

void RunsPanel::updateDeleteButton()
{
    const std::vector<std::string> ids = selectedIds();
    const bool includesBusy = std::find(ids.begin(), ids.end(), busyRun_) != ids.end();
    deleteButton_->setEnabled(!ids.empty() && !includesBusy);
}
