#pragma once

#include <QColor>
#include <QLabel>
#include <QSet>

#include <vector>

// One legend for all the charts of a board: each shown run's colour and full
// name, wrapping onto more lines as runs are added rather than eliding names
// (Qt's per-chart legends squeeze a dozen runs into "LeNe..." each). It is
// also how the user picks runs out: a click on a run hides it from every
// chart (its entry greys out) and a second shows it again; hovering an entry
// highlights that run's lines. The board does both on its charts.
class RunLegend : public QLabel {
    Q_OBJECT

public:
    struct Entry {
        QString key;  // the run's id, its lines' key on the charts
        QString name;
        QColor color;
    };

    explicit RunLegend(QWidget* parent = nullptr);

    // Hidden runs stay hidden while their entries remain.
    void setEntries(const std::vector<Entry>& entries);
    const std::vector<Entry>& entries() const { return entries_; }
    bool isHidden(const QString& key) const { return hidden_.contains(key); }
    // What a click on the entry of `key` does.
    void toggleHidden(const QString& key);

signals:
    void runHiddenChanged(const QString& key, bool hidden);
    // Empty when the pointer leaves the entries.
    void runHovered(const QString& key);

protected:
    // The pointer off the legend: no run highlighted.
    void leaveEvent(QEvent* event) override;

private:
    void render();

    std::vector<Entry> entries_;
    QSet<QString> hidden_;
};
