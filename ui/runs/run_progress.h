#pragma once

#include <QElapsedTimer>
#include <QString>

// The runs waiting behind the run in flight: how many, how many of them a
// probe timed (RunTimeEstimates::queueTime) and those ones' seconds, summed.
struct QueueTime {
    int runs = 0;
    int timed = 0;
    double seconds = 0;
};

// Where a run stands, as the progress bar says it: "1/10 epochs done · batch
// 40/235 · loss 0.512 · 0:42 elapsed · about 3:10 left". The estimate of
// what is left assumes the batches still to come take as long as those done,
// so it is only shown once 2% of the run is done (the first batches include
// data loading and kernel measurement). The runs queued behind it follow:
// "· queue: 4 runs, about 5:40 more", from their probes' estimates.
class RunProgress {
public:
    void start(int plannedEpochs);
    // Records the latest batch; `epoch` counts from 1, `batch` from 1.
    void update(int epoch, int batch, int batchesPerEpoch, double loss);
    // The queue behind this run, as the text says it after the run's own time.
    void setQueue(const QueueTime& queue) { queue_ = queue; }

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
    // " · queue: 4 runs, about 5:40 more"; empty when none waits.
    QString queueText() const;

    QElapsedTimer elapsed_;
    int plannedEpochs_ = 0;
    int epoch_ = 0, batch_ = 0, batchesPerEpoch_ = 0;
    double loss_ = 0;
    QueueTime queue_;
};
