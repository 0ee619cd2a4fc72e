#include "chart_board.h"

#include <QAction>
#include <QButtonGroup>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <array>

#include "epoch_metric_chart.h"
#include "vocabulary.h"

// ChartBoard's focus view, where the grid cannot keep every chart readable:
// one chart large, chosen by the bar of buttons above it, Ctrl+1.. or PgUp
// and PgDn (apart from the grid's layout, chart_board.cpp).

void ChartBoard::addFocusBar()
{
    // A name a button can carry for each chart, as gridOrder_ lists them.
    const std::array<QString, 6> names{tr("Accuracy"), tr("Loss"), vocabulary::secondsPerEpochTitle(),
                                       tr("Speedup"), tr("Gap to ideal"), tr("Drift")};
    auto* row = new QHBoxLayout(focusBar_);
    row->setContentsMargins(4, 0, 4, 0);
    row->setSpacing(4);
    focusBar_->setObjectName(QStringLiteral("focusBar"));
    for (std::size_t i = 0; i < gridOrder_.size(); ++i) {
        auto* button = new QToolButton;
        button->setObjectName(QStringLiteral("focus_") + gridOrder_[i]->objectName());
        button->setText(names[i]);
        button->setCheckable(true);
        button->setVisible(gridOrder_[i] != drift_);  // until drift is measured
        button->setToolTip(tr("Show this chart large (Ctrl+%1; PgUp and PgDn go through them)").arg(i + 1));
        focusButtons_->addButton(button, int(i));
        row->addWidget(button);
    }
    row->addStretch();
    focusButtons_->setExclusive(true);
    connect(focusButtons_, &QButtonGroup::idClicked, this,
            [this](int id) { focusChart(gridOrder_[std::size_t(id)]); });
    focusBar_->hide();
    boardLayout_->addWidget(focusBar_);
}

void ChartBoard::addFocusKeys()
{
    // Window-wide while the board shows, and only in the focus view.
    const auto addKey = [this](const QKeySequence& key, auto go) {
        auto* action = new QAction(this);
        action->setShortcut(key);
        action->setEnabled(false);
        connect(action, &QAction::triggered, this, go);
        connect(this, &ChartBoard::focusViewChanged, action, &QAction::setEnabled);
        addAction(action);
    };
    for (int i = 0; i < int(gridOrder_.size()); ++i) {
        addKey(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)), [this, i] {
            const std::vector<QWidget*> choices = focusChoices();
            if (std::size_t(i) < choices.size())
                focusChart(choices[std::size_t(i)]);
        });
    }
    addKey(QKeySequence(Qt::Key_PageDown), [this] { focusNextChart(1); });
    addKey(QKeySequence(Qt::Key_PageUp), [this] { focusNextChart(-1); });
}

std::vector<QWidget*> ChartBoard::focusChoices() const
{
    std::vector<QWidget*> choices;
    for (QWidget* chart : gridOrder_) {
        if (chart != drift_ || driftMeasured_)
            choices.push_back(chart);
    }
    return choices;
}

void ChartBoard::focusChart(const QWidget* chart)
{
    const auto at = std::find(gridOrder_.begin(), gridOrder_.end(), chart);
    if (at == gridOrder_.end())
        return;
    focused_ = std::size_t(at - gridOrder_.begin());
    if (focusView_)
        layOutAnew();
}

void ChartBoard::focusNextChart(int step)
{
    const std::vector<QWidget*> choices = focusChoices();
    const auto at = std::find(choices.begin(), choices.end(), gridOrder_[focused_]);
    const int count = int(choices.size());
    const int index = at == choices.end() ? 0 : int(at - choices.begin());
    focusChart(choices[std::size_t(((index + step) % count + count) % count)]);
}
