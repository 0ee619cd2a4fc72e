#pragma once

#include <QColor>
#include <QLabel>

#include <vector>

// One legend for all the charts of a board: each shown run's colour and full
// name, wrapping onto more lines as runs are added rather than eliding names
// (Qt's per-chart legends squeeze a dozen runs into "LeNe..." each).
class RunLegend : public QLabel {
    Q_OBJECT

public:
    struct Entry {
        QString name;
        QColor color;
    };

    explicit RunLegend(QWidget* parent = nullptr);

    void setEntries(const std::vector<Entry>& entries);
    const std::vector<Entry>& entries() const { return entries_; }

private:
    std::vector<Entry> entries_;
};
