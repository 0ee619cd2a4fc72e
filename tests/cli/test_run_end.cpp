// Every way a dp-train run can end that can be caught leaves its record
// ended, never "running": SIGHUP (a terminal closing), SIGTERM relayed twice
// (as `timeout` does), and the reader of its output going away (`| head`).
#include <signal.h>

#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "dp_train_process.h"

namespace {

// A LeNet run long enough (tens of seconds) to be interrupted after its first epoch.
const QStringList kLongLenet{"--limit-train", "2048", "--limit-test", "256", "--batch-size", "256",
                             "--epochs", "200", "--no-history"};

QJsonObject record_of(const QString& path) { return QJsonDocument::fromJson(file_bytes(path)).object(); }

}  // namespace

class TestRunEnd : public QObject {
    Q_OBJECT

private slots:
    // D7: SIGHUP ended dp-train by the signal, its record "running".
    // D32: a signal relayed twice counted as the second Ctrl-C, which quit at
    // once, unrecorded. Both stop after the batch in flight now, recorded.
    void signalsStopTheRunAndRecordIt_data() {
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("times");
        QTest::addColumn<QString>("named");
        QTest::newRow("SIGHUP") << int(SIGHUP) << 1 << "SIGHUP (the terminal closed)";
        QTest::newRow("SIGTERM relayed twice") << int(SIGTERM) << 2 << "SIGTERM";
        QTest::newRow("Ctrl-C twice") << int(SIGINT) << 2 << "Ctrl-C";
    }
    void signalsStopTheRunAndRecordIt() {
        QFETCH(int, signal);
        QFETCH(int, times);
        QFETCH(QString, named);
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        QProcess process;
        QVERIFY(start_until_first_epoch(process, kLongLenet + QStringList{"--record", record}));
        for (int i = 0; i < times; ++i) ::kill(pid_t(process.processId()), signal);
        const auto result = finish_dp_train(process, 60000);
        QCOMPARE(result.exit_code, 128 + signal);
        QVERIFY2(result.err.contains("dp-train: stopped by " + named + " after "), qPrintable(result.err));
        const QJsonObject json = record_of(record);
        QCOMPARE(json["status"].toString(), QString("stopped"));
        QVERIFY(json["epochs"].toArray().size() >= 1);
    }

    // A signal ignored when dp-train starts stays ignored: `nohup dp-train`
    // outlives the terminal that started it.
    void anIgnoredSignalStaysIgnored() {
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        QStringList args = kLongLenet + QStringList{"--record", record};
        args[args.indexOf("--epochs") + 1] = "2";
        QProcess process;
        process.setProcessEnvironment(dp_train_environment());
        process.start("/bin/sh", QStringList{"-c", "trap '' HUP; exec \"$0\" \"$@\"", DP_TRAIN_PATH} + args);
        QByteArray out;
        while (!out.contains("epoch 1/") && process.waitForReadyRead(60000)) out += process.peek(1 << 20);
        QVERIFY(out.contains("epoch 1/"));
        ::kill(pid_t(process.processId()), SIGHUP);
        const auto result = finish_dp_train(process, 60000);
        QCOMPARE(result.exit_code, 0);
        QCOMPARE(record_of(record)["status"].toString(), QString("finished"));
    }

    // D7: `dp-train ... | head -3` died of SIGPIPE at its next print, the
    // record "running". Now the run stops, recorded, and says why on stderr.
    void aClosedOutputStopsTheRunAndRecordsIt() {
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        QProcess process;
        process.setProcessEnvironment(dp_train_environment());
        process.start("/bin/sh", QStringList{"-c", "\"$0\" \"$@\" | head -n 1"} +
                                     QStringList{DP_TRAIN_PATH} + kLongLenet +
                                     QStringList{"--record", record});
        const auto result = finish_dp_train(process, 60000);
        QCOMPARE(result.exit_code, 0);  // head's
        QCOMPARE(result.out.count('\n'), 1);
        QVERIFY2(result.err.contains("dp-train: stopped by SIGPIPE (the output's reader went away)"),
                 qPrintable(result.err));
        QCOMPARE(record_of(record)["status"].toString(), QString("stopped"));
    }
};

QTEST_GUILESS_MAIN(TestRunEnd)
#include "test_run_end.moc"
