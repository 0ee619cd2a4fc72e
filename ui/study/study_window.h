#pragma once

#include <QString>
#include <QWidget>

#include "study/study_file.h"

class EfficiencyHeatMap;
class QComboBox;
class QLabel;
class QTableView;
class StudyTableModel;

// A study in a window of its own: what it is (grid, repeats, runs), its
// results table, the heat map of scaling efficiency over devices x batch size
// (with a pick of the learning rate when the grid has several), and Export
// CSV. Either a study file (dp-train --sweep's) opened, or a study the
// workbench is running, followed run by run as each ends.
class StudyWindow : public QWidget {
    Q_OBJECT

public:
    // A study file opened from `path`: every run known.
    StudyWindow(dp::Study study, const QString& path, QWidget* parent = nullptr);
    // A study about to run `plan`, with no runs yet: addRun shows each run
    // as it ends, the heading saying "k of M runs" until studyEnded.
    explicit StudyWindow(const dp::StudyPlan& plan, QWidget* parent = nullptr);

    // A run of the study ended (finished, failed or stopped): the table and
    // the heat map take in its record (those of finished runs only).
    void addRun(const dp::RunRecord& record);
    // The study ended and was written to `path` ("" when it was not).
    void studyEnded(const QString& path);

    const dp::Study& study() const { return study_; }
    // How many runs the study plans; 0 for a study opened from a file.
    int plannedRuns() const { return plannedRuns_; }
    bool isRunning() const { return running_; }
    // What the study is and how far it got: "sweep devices=1,2: 3 of 8 runs, each point once".
    QString heading() const;

    StudyTableModel* tableModel() const { return model_; }
    EfficiencyHeatMap* heatMap() const { return heatMap_; }
    // Which learning rate the heat map shows; hidden while the study has one.
    QComboBox* learningRatePicker() const { return lrPicker_; }

    // Writes the table as CSV (study/study_table.h: a '.' whatever the
    // locale) atomically; false with the reason in `problem` when it cannot.
    bool exportCsv(const QString& path, QString* problem = nullptr) const;

private:
    // The window's parts, empty until the public constructors show the study.
    StudyWindow(dp::Study study, int plannedRuns, QWidget* parent);
    void showRuns();
    void showLearningRates();
    void chooseCsvFile();

    dp::Study study_;
    int plannedRuns_ = 0;
    bool running_ = false;
    QString path_;
    StudyTableModel* model_;
    QTableView* table_;
    EfficiencyHeatMap* heatMap_;
    QWidget* lrRow_;
    QComboBox* lrPicker_;
    QLabel* summary_;
    QLabel* source_;
};

// Reads the study at `path` and shows it in a StudyWindow (deleted when
// closed) over `parent`; null with the one-line reason in `problem` when
// the file is not a study that can be read.
StudyWindow* openStudyWindow(const QString& path, QWidget* parent, QString* problem = nullptr);

// File ▸ Open study…: asks for a study file and opens it, saying why not in a message box.
void chooseStudyFile(QWidget* parent);
