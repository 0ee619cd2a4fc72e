#pragma once
// Runs the real dp-train as a user would, for the CLI tests.

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

struct ProgramResult {
    int exit_code = -1;  // -1: ended by a signal or still running after the wait
    QString out, err;
};

// DP_DATA_DIR and DP_WORKBENCH_DATA_DIR (the history's folder) are set when given.
inline QProcessEnvironment dp_train_environment(const QString& data_dir = {},
                                                const QString& history_dir = {}) {
    auto env = QProcessEnvironment::systemEnvironment();
    if (!data_dir.isEmpty()) env.insert("DP_DATA_DIR", data_dir);
    if (!history_dir.isEmpty()) env.insert("DP_WORKBENCH_DATA_DIR", history_dir);
    return env;
}

inline ProgramResult finish_dp_train(QProcess& process, int timeout_ms = 120000) {
    process.waitForFinished(timeout_ms);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}

inline ProgramResult run_dp_train(const QStringList& args, const QString& data_dir = {},
                                  const QString& history_dir = {}) {
    QProcess process;
    process.setProcessEnvironment(dp_train_environment(data_dir, history_dir));
    process.start(DP_TRAIN_PATH, args);
    return finish_dp_train(process);
}

// Starts dp-train and returns once its stdout shows the first epoch's line.
inline bool start_until_first_epoch(QProcess& process, const QStringList& args) {
    process.setProcessEnvironment(dp_train_environment());
    process.start(DP_TRAIN_PATH, args);
    QByteArray out;
    while (!out.contains("epoch 1/")) {
        if (!process.waitForReadyRead(60000)) return false;
        out += process.peek(1 << 20);
    }
    return true;
}

// The bytes of the file at `path`, empty if it cannot be read.
inline QByteArray file_bytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
