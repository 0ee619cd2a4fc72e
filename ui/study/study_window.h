#pragma once

#include <QString>
#include <QWidget>

#include "study/study_file.h"

class EfficiencyHeatMap;
class QTableView;
class StudyTableModel;

// A study file (dp-train --sweep's) opened in the workbench, in a window of
// its own: what it is (grid, repeats, runs), its results table, the heat map
// of scaling efficiency over devices x batch size, and File ▸ Export CSV.
class StudyWindow : public QWidget {
    Q_OBJECT

public:
    StudyWindow(dp::Study study, const QString& path, QWidget* parent = nullptr);

    StudyTableModel* tableModel() const { return model_; }
    EfficiencyHeatMap* heatMap() const { return heatMap_; }

    // Writes the table as CSV (study/study_table.h: a '.' whatever the
    // locale) atomically; false with the reason in `problem` when it cannot.
    bool exportCsv(const QString& path, QString* problem = nullptr) const;

private:
    void chooseCsvFile();

    dp::Study study_;
    StudyTableModel* model_;
    QTableView* table_;
    EfficiencyHeatMap* heatMap_;
};

// Reads the study at `path` and shows it in a StudyWindow (deleted when
// closed) over `parent`; null with the one-line reason in `problem` when
// the file is not a study that can be read.
StudyWindow* openStudyWindow(const QString& path, QWidget* parent, QString* problem = nullptr);

// File ▸ Open study…: asks for a study file and opens it, saying why not in a message box.
void chooseStudyFile(QWidget* parent);
