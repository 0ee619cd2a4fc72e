#pragma once

#include <QObject>
#include <QString>

class ChartBoard;
class ClassroomPage;
class RunsTableModel;
class ScalingPredictionPage;
class StatusLine;

// File ▸ Export: every chart as PNG and SVG (the step view and the Scaling
// chart too, where they show something), the checked runs as CSV and JSON,
// their epochs as CSV and the step traces they wrote, into one folder.
class FolderExport : public QObject {
    Q_OBJECT

public:
    struct Parts {
        const ChartBoard* charts;
        ClassroomPage* classroomPage;
        ScalingPredictionPage* scalingPage;
        const RunsTableModel* runsModel;
        StatusLine* status;  // says what was written, or which file could not be
    };
    explicit FolderExport(const Parts& parts, QObject* parent = nullptr);

    // False, with the reason in the status line, if a file cannot be written.
    bool exportTo(const QString& folder);

private:
    Parts parts_;
};
