// --trace: a 2-device run's step phases as Chrome trace JSON, checked as a
// trace viewer reads it: one track per device, each step's phases in the
// order they run, and the slowest device's phases adding up to the step.
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <clocale>
#include <csignal>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "devices/device.h"
#include "small_linear_run.h"
#include "train/step_trace.h"
#include "train/trainer.h"

namespace {

struct Quiet : dp::TrainObserver {
    std::string failure;
    std::vector<std::string> warnings;
    void on_failed(const std::string& message) override { failure = message; }
    void on_log(const std::string& line) override {
        if (line.starts_with("warning:")) warnings.push_back(line);
    }
};

// A linear model on random data: `samples` / 32 steps an epoch.
dp::TrainConfig tinyTracedRun(const QTemporaryDir& dir, int epochs, int samples = 96) {
    dp::TrainConfig config;
    config.model = "linear";
    config.dataset = "random";
    config.samples = samples;
    config.batch_size = 32;
    config.epochs = epochs;
    config.devices = {"cpu:0"};
    config.trace_path = dir.filePath("trace.json").toStdString();
    return config;
}

// The trace's events, or a test failure naming the parse error.
QJsonArray traceEvents(const std::string& path, QString* problem) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = QStringLiteral("cannot open ") + file.fileName();
        return {};
    }
    const QByteArray text = file.readAll();
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError)
        *problem = error.errorString() + QStringLiteral(" at ") + QString::number(error.offset) +
                   QStringLiteral(": ") + QString::fromUtf8(text.mid(std::max(0, error.offset - 60), 120));
    return document.object()[QStringLiteral("traceEvents")].toArray();
}

// Bytes this process has written so far (write, pwrite, ...), from /proc/self/io.
long long bytesWrittenByThisProcess() {
    std::ifstream io("/proc/self/io");
    std::string key;
    long long value = 0;
    while (io >> key >> value)
        if (key == "wchar:") return value;
    return -1;
}

}  // namespace

class TestStepTrace : public QObject {
    Q_OBJECT

private slots:
    void twoDeviceRunWritesAValidChromeTrace() {
        QTemporaryDir dir;
        dp::TrainConfig config = small_linear_run(96, 32, 2);  // 3 steps an epoch
        config.devices = {"cpu:0", "cpu:1"};
        config.trace_path = dir.filePath("trace.json").toStdString();
        Quiet observer;
        QCOMPARE(dp::Trainer(config).run(observer), dp::RunOutcome::finished);
        QVERIFY2(observer.failure.empty(), observer.failure.c_str());

        QFile file(QString::fromStdString(config.trace_path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QJsonArray events = document.object()[QStringLiteral("traceEvents")].toArray();

        std::map<int, QString> trackNames;
        // Per step (epoch, batch): the steps-track slice and each device's phases in file order.
        struct Step {
            double start = 0, duration = 0;
            std::map<int, std::vector<QJsonObject>> phases;
        };
        std::map<std::pair<int, int>, Step> steps;
        for (const QJsonValue& value : events) {
            const QJsonObject event = value.toObject();
            const int track = event[QStringLiteral("tid")].toInt();
            if (event[QStringLiteral("ph")] == QStringLiteral("M")) {
                trackNames[track] = event[QStringLiteral("args")].toObject()[QStringLiteral("name")].toString();
                continue;
            }
            QCOMPARE(event[QStringLiteral("ph")].toString(), QStringLiteral("X"));
            const QJsonObject args = event[QStringLiteral("args")].toObject();
            Step& step = steps[{args[QStringLiteral("epoch")].toInt(), args[QStringLiteral("batch")].toInt()}];
            if (event[QStringLiteral("name")] == QStringLiteral("step")) {
                step.start = event[QStringLiteral("ts")].toDouble();
                step.duration = event[QStringLiteral("dur")].toDouble();
            } else {
                step.phases[track].push_back(event);
            }
        }
        QCOMPARE(trackNames[0], QStringLiteral("cpu:0"));
        QCOMPARE(trackNames[1], QStringLiteral("cpu:1"));
        QCOMPARE(trackNames[2], QStringLiteral("steps"));
        QCOMPARE(steps.size(), std::size_t(6));  // 2 epochs of 3 steps

        const QStringList order{QStringLiteral("data"), QStringLiteral("forward"),
                                QStringLiteral("backward"), QStringLiteral("all-reduce"),
                                QStringLiteral("update")};
        double previousEnd = -1;
        for (const auto& [key, step] : steps) {
            QVERIFY(step.start >= previousEnd - 1e-3);  // steps do not overlap
            previousEnd = step.start + step.duration;
            QCOMPARE(step.phases.size(), std::size_t(2));  // both devices
            double slowest = 0;
            for (const auto& [track, phases] : step.phases) {
                QCOMPARE(int(phases.size()), order.size());
                double at = step.start, total = 0;
                for (int i = 0; i < order.size(); ++i) {
                    QCOMPARE(phases[std::size_t(i)][QStringLiteral("name")].toString(), order[i]);
                    const double ts = phases[std::size_t(i)][QStringLiteral("ts")].toDouble();
                    const double dur = phases[std::size_t(i)][QStringLiteral("dur")].toDouble();
                    QVERIFY(dur >= 0);
                    QVERIFY(qAbs(ts - at) < 2e-3);  // each phase starts where the last ended
                    at = ts + dur;
                    total += dur;
                }
                QVERIFY(at <= step.start + step.duration + 2e-3);
                slowest = std::max(slowest, total);
            }
            QVERIFY2(qAbs(slowest - step.duration) < 2e-3,
                     qPrintable(QStringLiteral("%1 vs %2").arg(slowest).arg(step.duration)));
        }
        // Time 0 is the first step's start: no event before it (the first was
        // at -0.727 us, the step's length rounded down to the microsecond).
        for (const QJsonValue& value : events)
            if (value.toObject()[QStringLiteral("ph")] == QStringLiteral("X"))
                QVERIFY2(value.toObject()[QStringLiteral("ts")].toDouble() >= 0,
                         qPrintable(QString::fromUtf8(QJsonDocument(value.toObject()).toJson())));
    }

    // Issue 44: under a decimal-comma locale the trace said "ts": -0,727,
    // which no JSON reader (Perfetto included) opens.
    void traceIsValidJsonUnderADecimalCommaLocale() {
        const std::string before = std::setlocale(LC_ALL, nullptr);
        if (!std::setlocale(LC_ALL, "de_DE.UTF-8"))
            QSKIP("no de_DE.UTF-8 locale here: scripts/setup generates it");
        QTemporaryDir dir;
        const dp::TrainConfig config = tinyTracedRun(dir, 2);
        Quiet observer;
        const dp::RunOutcome outcome = dp::Trainer(config).run(observer);
        std::setlocale(LC_ALL, before.c_str());
        QCOMPARE(outcome, dp::RunOutcome::finished);
        QString problem;
        const QJsonArray events = traceEvents(config.trace_path, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(events.size(), 2 + 2 * 3 * 6);  // 2 track names; 6 steps of 5 phases and a step slice
        for (const QJsonValue& value : events) {
            const QJsonObject event = value.toObject();
            if (event[QStringLiteral("ph")] != QStringLiteral("X")) continue;
            QVERIFY(event[QStringLiteral("ts")].isDouble() && event[QStringLiteral("dur")].isDouble());
            QVERIFY(event[QStringLiteral("ts")].toDouble() >= 0);
        }
    }

    // Issue 44: the whole trace was written again after every epoch, so a
    // 600-epoch run spent 80% of its time rewriting it. Each epoch's end now
    // writes that epoch's steps: about the same bytes at epoch 8 as at epoch 2.
    void eachEpochWritesOnlyItsOwnSteps() {
        QTemporaryDir dir;
        const dp::TrainConfig config = tinyTracedRun(dir, 10);
        struct WritesPerEpoch : Quiet {
            std::vector<long long> written;  // by the process, at each epoch's report
            void on_epoch(const dp::EpochMetrics&) override { written.push_back(bytesWrittenByThisProcess()); }
        } observer;
        if (bytesWrittenByThisProcess() < 0) QSKIP("no /proc/self/io here");
        QCOMPARE(dp::Trainer(config).run(observer), dp::RunOutcome::finished);
        QVERIFY2(observer.failure.empty(), observer.failure.c_str());
        // An epoch's report comes before its trace write: written[e] - written[e-1]
        // holds epoch e's write (and the first epoch's kernel choices, left out here).
        const long long second = observer.written[2] - observer.written[1];
        const long long last = observer.written[9] - observer.written[8];
        QVERIFY2(second > 0, qPrintable(QString::number(second)));
        QVERIFY2(last <= second + second / 4,
                 qPrintable(QStringLiteral("epoch 9 wrote %1 bytes, epoch 2 %2").arg(last).arg(second)));
        QString problem;
        QCOMPARE(traceEvents(config.trace_path, &problem).size(), 2 + 10 * 3 * 6);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // Between epochs the file is whole JSON, not only at the run's end.
    void theTraceIsValidJsonAfterEveryEpoch() {
        QTemporaryDir dir;
        const dp::TrainConfig config = tinyTracedRun(dir, 3);
        struct ReadsTheTrace : Quiet {
            std::string path;
            std::vector<int> events;  // at each epoch's report: the steps of the epochs before
            QString problem;
            void on_epoch(const dp::EpochMetrics&) override {
                QString parse;
                events.push_back(int(traceEvents(path, &parse).size()));
                if (problem.isEmpty()) problem = parse;
            }
        } observer;
        observer.path = config.trace_path;
        QCOMPARE(dp::Trainer(config).run(observer), dp::RunOutcome::finished);
        QVERIFY2(observer.problem.isEmpty(), qPrintable(observer.problem));
        QCOMPARE(observer.events, (std::vector<int>{2, 2 + 18, 2 + 36}));
    }

    // Issue 44: a trace on a full disk failed the run ("No space left on
    // device" after one epoch). The trace is an aid: one warning, the run
    // finishes, and the file keeps the epochs written before.
    void aFullDiskStopsTheTraceNotTheRun() {
        QTemporaryDir dir;
        // Room for the track names and an epoch's steps, not for more: a
        // file-size limit fails the write past it as a full disk does.
        const dp::TrainConfig config = tinyTracedRun(dir, 4, 32 * 4);
        rlimit before{};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &before) == 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG, not a killed test
        rlimit small = before;
        small.rlim_cur = 6000;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
        Quiet observer;
        const dp::RunOutcome outcome = dp::Trainer(config).run(observer);
        ::setrlimit(RLIMIT_FSIZE, &before);
        std::signal(SIGXFSZ, oldHandler);
        QCOMPARE(outcome, dp::RunOutcome::finished);
        QVERIFY2(observer.failure.empty(), observer.failure.c_str());
        std::vector<std::string> traceWarnings;
        for (const std::string& warning : observer.warnings)
            if (warning.find("step trace") != std::string::npos) traceWarnings.push_back(warning);
        QCOMPARE(traceWarnings.size(), std::size_t(1));
        QVERIFY2(traceWarnings[0].find("trace.json") != std::string::npos &&
                     traceWarnings[0].find("training goes on") != std::string::npos,
                 traceWarnings[0].c_str());
        QString problem;
        const QJsonArray events = traceEvents(config.trace_path, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(events.size(), 2 + 4 * 6);  // the first epoch's 4 steps, no more
    }

    // A file that cannot be written at all (/dev/full: every write fails) is
    // reported, not thrown; adding and flushing steps after it does nothing.
    void anUnwritableTraceSaysWhyAndWritesNothingMore() {
        dp::StepTrace trace({"cpu:0"}, 1, "/dev/full");
        QVERIFY2(trace.failure().find("/dev/full") != std::string::npos &&
                     trace.failure().find("No space left on device") != std::string::npos,
                 trace.failure().c_str());
        dp::StepReport report;
        report.devices.resize(1);
        trace.start_epoch();
        trace.add_step(report, std::chrono::steady_clock::now());
        trace.flush();
        QCOMPARE(trace.bytes_written(), std::uint64_t(0));
    }

    // D20 (issue 32): --epochs 100000000 --trace failed "out of memory": the
    // trace reserved every epoch's events up front. Now epoch by epoch.
    void traceOfAVeryLongRunTakesRoomEpochByEpoch() {
        QTemporaryDir dir;
        dp::TrainConfig config;
        config.model = "linear";
        config.dataset = "random";
        config.samples = 96;
        config.batch_size = 32;
        config.epochs = 2'000'000'000;  // terabytes of events, reserved at once
        config.devices = {"cpu:0"};
        config.trace_path = dir.filePath("trace.json").toStdString();
        struct StopAfterFirstEpoch : Quiet {
            dp::Trainer* trainer = nullptr;
            void on_epoch(const dp::EpochMetrics&) override { trainer->request_stop(); }
        } observer;
        dp::Trainer trainer(config);
        observer.trainer = &trainer;
        QCOMPARE(trainer.run(observer), dp::RunOutcome::stopped);
        QVERIFY2(observer.failure.empty(), observer.failure.c_str());
        QVERIFY(QFile::exists(QString::fromStdString(config.trace_path)));
    }
};

QTEST_GUILESS_MAIN(TestStepTrace)
#include "test_step_trace.moc"
