// --trace: a 2-device run's step phases as Chrome trace JSON, checked as a
// trace viewer reads it: one track per device, each step's phases in the
// order they run, and the slowest device's phases adding up to the step.
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <map>
#include <vector>

#include "devices/device.h"
#include "train/trainer.h"

namespace {

struct Quiet : dp::TrainObserver {
    std::string failure;
    void on_failed(const std::string& message) override { failure = message; }
};

}  // namespace

class TestStepTrace : public QObject {
    Q_OBJECT

private slots:
    void twoDeviceRunWritesAValidChromeTrace() {
        QTemporaryDir dir;
        dp::TrainConfig config;
        config.model = "linear";
        config.dataset = "random";
        config.samples = 96;
        config.batch_size = 32;  // 3 steps an epoch
        config.epochs = 2;
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
