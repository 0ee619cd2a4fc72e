#pragma once

#include <QObject>
#include <QString>

class QSocketNotifier;

// SIGINT (Ctrl-C), SIGTERM and SIGHUP (the session ended) end the workbench
// as they end dp-train (app/cli/interrupt.h): the first is `interrupted`,
// upon which the window stops the run in flight after its batch, recorded
// "stopped", and quits once it has ended (its temporary files removed); a
// second (a signal relayed twice, as `timeout` does, or Ctrl-C pressed
// again) changes nothing; a third ends the program at once, as the signal
// would without a handler. A signal ignored when the workbench started
// (`nohup`'s SIGHUP, a background job's SIGINT) stays ignored.
// The handler only writes the signal's number to a socket; the GUI thread
// reads it (a QSocketNotifier) and emits `interrupted` there. One instance
// at a time; its destructor gives the signals their default action back.
class InterruptSignals : public QObject {
    Q_OBJECT

public:
    explicit InterruptSignals(QObject* parent = nullptr);
    ~InterruptSignals() override;
    InterruptSignals(const InterruptSignals&) = delete;
    InterruptSignals& operator=(const InterruptSignals&) = delete;

    // The first signal caught, 0 if none: the workbench exits with 128 + it,
    // as a shell reports a program the signal ended.
    int caughtSignal() const;
    // How messages name it: "Ctrl-C", "SIGTERM", "SIGHUP (the session ended)".
    static QString name(int signal);

signals:
    void interrupted(int signal);

private:
    void readSignals();

    QSocketNotifier* notifier_ = nullptr;
    bool announced_ = false;
};
