#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QPlainTextEdit;

// The window's status line under the charts and its engine log (the Log
// tab): what the window is doing, or why it cannot start a run, and each
// run's lines. Every room of the window reports through it, so a message
// looks the same wherever it comes from. The window places both widgets.
class StatusLine : public QObject {
    Q_OBJECT

public:
    explicit StatusLine(QObject* parent = nullptr);

    QLabel* label() const { return label_; }
    QPlainTextEdit* logView() const { return logView_; }

    QString text() const;
    // An error reads red until the next message.
    void show(const QString& text, bool isError = false);
    void appendLog(const QString& line);
    // The run's summary line, unless the engine's log already holds it.
    void logSummaryOnce(const QString& summary, int epochsDone);

private:
    QLabel* label_;
    QPlainTextEdit* logView_;
};
