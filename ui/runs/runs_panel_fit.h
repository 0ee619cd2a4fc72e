#pragma once

#include <QObject>

class QSplitter;
class QTableView;

// Keeps the runs table as tall as its rows, and no taller than a third of the
// splitter that holds it, so that the charts above get the rest: two runs
// took 150 px of empty table while each plot was 60 px tall. Once the user
// drags the splitter, their size stands.
class RunsPanelFit : public QObject {
    Q_OBJECT

public:
    // `splitter`'s last widget holds `table`.
    RunsPanelFit(QSplitter* splitter, QTableView* table, QObject* parent = nullptr);

    // Rows the table keeps room for while it has fewer (its empty state's hint).
    static constexpr int kLeastRows = 3;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fit();

    QSplitter* splitter_;
    QTableView* table_;
    bool sizedByUser_ = false;
    bool fitting_ = false;
};
