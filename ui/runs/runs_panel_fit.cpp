#include "runs_panel_fit.h"

#include <QEvent>
#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QTimer>

#include <algorithm>

RunsPanelFit::RunsPanelFit(QSplitter* splitter, QTableView* table, QObject* parent)
    : QObject(parent), splitter_(splitter), table_(table)
{
    // splitterMoved comes from the user's drag only, never from setSizes.
    connect(splitter_, &QSplitter::splitterMoved, this, [this] { sizedByUser_ = !fitting_; });
    const auto fitSoon = [this] { QTimer::singleShot(0, this, &RunsPanelFit::fit); };
    QAbstractItemModel* rows = table_->model();
    connect(rows, &QAbstractItemModel::rowsInserted, this, fitSoon);
    connect(rows, &QAbstractItemModel::rowsRemoved, this, fitSoon);
    connect(rows, &QAbstractItemModel::modelReset, this, fitSoon);
    connect(rows, &QAbstractItemModel::layoutChanged, this, fitSoon);
    splitter_->installEventFilter(this);
}

bool RunsPanelFit::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == splitter_ && (event->type() == QEvent::Resize || event->type() == QEvent::Show))
        QTimer::singleShot(0, this, &RunsPanelFit::fit);
    return false;
}

void RunsPanelFit::fit()
{
    const QList<int> sizes = splitter_->sizes();
    if (sizedByUser_ || sizes.size() < 2 || !splitter_->isVisible() || !table_->isVisible())
        return;
    const int total = sizes[0] + sizes[1];
    // What the panel takes around the table's rows (tabs, filter row,
    // header, frame, a scroll bar), then the rows.
    const int chrome = sizes[1] - table_->viewport()->height();
    const int rows = std::max(table_->verticalHeader()->length(),
                              kLeastRows * table_->verticalHeader()->defaultSectionSize());
    const int wanted = chrome + rows;
    const int bottom = std::min(wanted, total / 3);
    if (bottom == sizes[1])
        return;
    fitting_ = true;
    splitter_->setSizes({total - bottom, bottom});
    fitting_ = false;
}
