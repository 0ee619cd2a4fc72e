#pragma once

#include <QElapsedTimer>
#include <QString>

// Where a run stands, as the progress bar says it: "1/10 epochs done · batch
// 40/235 · loss 0.512 · 0:42 elapsed · about 3:10 left". The estimate of
// what is left assumes the batches still to come take as long as those done,
// so it is only shown once 2% of the run is done (the first batches include
// data loading and kernel measurement).
class RunProgress {
public:
    void start(int plannedEpochs);
    // Records the latest batch; `epoch` counts from 1, `batch` from 1.
    void update(int epoch, int batch, int batchesPerEpoch, double loss);

    // Batches done and planned in the whole run, for the bar's value and range.
    qint64 batchesDone() const;
    qint64 batchesPlanned() const;
    // Epochs finished, the count the runs table shows.
    int epochsDone() const;
    QString text() const;
    // The same for given elapsed seconds (what text() shows), for tests.
    QString textAt(double elapsedSeconds) const;

    // "0:42", "1:03:20"
    static QString clock(double seconds);

private:
    QElapsedTimer elapsed_;
    int plannedEpochs_ = 0;
    int epoch_ = 0, batch_ = 0, batchesPerEpoch_ = 0;
    double loss_ = 0;
};
