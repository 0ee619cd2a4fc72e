// The run record's JSON: what dp-train writes with --record and the
// workbench imports. Parsed back with Qt's JSON reader, an independent one.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/format.h"
#include "process_locale.h"
#include "record/run_record_json.h"
#include "train/recorded_run.h"
#include "record/step_timing_fields.h"

namespace {

dp::RunRecord sample_record() {
    dp::TrainConfig config;
    config.model = "resnet18";
    config.batch_size = 512;
    config.lr = 0.2f;
    config.devices = {"cpu:0", "cpu:1"};
    config.data_dir = "/data/\"quoted\"\\dir\n";  // characters JSON must escape
    dp::RunRecord record = dp::start_run_record(config, "dp-train");
    record.epochs.push_back({1, 0.61, 0.78, 0.83, 12.5});
    record.epochs.push_back({2, 0.42, 0.85, 0.86, 12.25});
    record.status = dp::RunStatus::finished;
    return record;
}

QJsonObject parse(const std::string& text) {
    QJsonParseError error;
    const auto document = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    if (error.error != QJsonParseError::NoError) qFatal("not JSON: %s", qPrintable(error.errorString()));
    return document.object();
}

std::string read_file(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

class TestRunRecord : public QObject {
    Q_OBJECT

private slots:
    void labelNamesModelDevicesBatchAndLearningRate() {
        QCOMPARE(QString::fromStdString(sample_record().label()),
                 QStringLiteral("ResNet-18 · 2× cpu · b512 · lr 0.2"));
    }

    // Issue 43: a Qt program under de_DE.UTF-8 (QCoreApplication sets the
    // locale from the environment) labelled runs "lr 0,05" and a straggler
    // "1,5×"; numbers as text are the C locale's in every locale. The record
    // written there reads back the same, its numbers JSON's.
    void numbersAreWrittenWithAPointUnderADecimalCommaLocale() {
        SET_PROCESS_LOCALE("de_DE.UTF-8");
        dp::RunRecord record = sample_record();
        record.config.lr = 0.05f;
        record.config.collective_timeout_s = 30.5;
        record.config.slow_devices = {"cpu:1=1.5"};
        QCOMPARE(QString::fromStdString(record.label()),
                 QStringLiteral("ResNet-18 · 2× cpu · b512 · lr 0.05 · straggler cpu:1 1.5×"));
        const QJsonObject config = parse(dp::to_json(record))[QStringLiteral("config")].toObject();
        QCOMPARE(config[QStringLiteral("lr")].toDouble(), 0.05);  // float 0.05f, shortest
        QCOMPARE(config[QStringLiteral("collective_timeout_s")].toDouble(), 30.5);
        QCOMPARE(dp::run_record_from_json(dp::to_json(record)).config.lr, 0.05f);
        QCOMPARE(dp::format("%g s", 30.5), std::string("30.5 s"));
    }

    // fp32 (the default) stays out of the label; another precision closes it,
    // so fp32 and bf16 runs of the same settings tell apart in legends.
    void labelNamesAPrecisionOtherThanFp32() {
        dp::RunRecord record = sample_record();
        record.config.precision = "bf16";
        QCOMPARE(QString::fromStdString(record.label()),
                 QStringLiteral("ResNet-18 · 2× cpu · b512 · lr 0.2 · bf16"));
    }

    // A multi-device run's all-reduce other than ring (DDP's) closes the
    // label too, so DataParallel and DDP runs tell apart; one device has none.
    void labelNamesAnAllReduceOtherThanRing() {
        dp::RunRecord record = sample_record();
        record.config.allreduce = dp::AllReduceStrategy::dataparallel;
        QCOMPARE(QString::fromStdString(record.label()),
                 QStringLiteral("ResNet-18 · 2× cpu · b512 · lr 0.2 · DataParallel"));
        record.config.allreduce = dp::AllReduceStrategy::naive;
        record.config.precision = "bf16";
        QCOMPARE(QString::fromStdString(record.label()),
                 QStringLiteral("ResNet-18 · 2× cpu · b512 · lr 0.2 · naive · bf16"));
        record.config.devices = {"cpu:0"};
        QCOMPARE(QString::fromStdString(record.label()),
                 QStringLiteral("ResNet-18 · 1× cpu · b512 · lr 0.2 · bf16"));
    }

    // The workbench's queue starts runs within the same second.
    // An mpirun record lists every rank's device: its device count is that
    // list's length, never multiplied by the processes (the Scaling tab took
    // a 2-rank run for 4 devices, issue 32 D3).
    void anMpirunRecordCountsTheDevicesItLists() {
        dp::TrainConfig config;
        config.devices = {"cpu:0", "cpu:1"};
        dp::RunRecord record = dp::start_run_record(config, "mpirun");
        record.processes = 2;
        QCOMPARE(record.device_count(), 2);
        record.processes = 1;
        QCOMPARE(record.device_count(), 2);
    }

    void runsStartedTogetherGetDifferentIds() {
        const dp::TrainConfig config;
        QVERIFY(dp::start_run_record(config, "dp-workbench").id !=
                dp::start_run_record(config, "dp-workbench").id);
    }

    void jsonHoldsEveryField() {
        const dp::RunRecord record = sample_record();
        const QJsonObject json = parse(dp::to_json(record));
        QCOMPARE(json["format"].toString(), QStringLiteral("dp-workbench run record"));
        QCOMPARE(json["version"].toInt(), 1);
        QCOMPARE(json["id"].toString().toStdString(), record.id);
        QVERIFY(QDateTime::fromString(json["started_at"].toString(), Qt::ISODate).isValid());
        QCOMPARE(json["status"].toString(), QStringLiteral("finished"));
        QCOMPARE(json["processes"].toInt(), 1);
        const QJsonObject config = json["config"].toObject();
        QCOMPARE(config["model"].toString(), QStringLiteral("resnet18"));
        QCOMPARE(config["data_dir"].toString().toStdString(), record.config.data_dir);
        QCOMPARE(config["batch_size"].toInt(), 512);
        QCOMPARE(float(config["lr"].toDouble()), 0.2f);
        QCOMPARE(config["devices"].toArray().size(), 2);
        QCOMPARE(config["shuffle"].toBool(), true);
        const QJsonArray epochs = json["epochs"].toArray();
        QCOMPARE(epochs.size(), 2);
        QCOMPARE(epochs[1].toObject()["test_acc"].toDouble(), 0.86);
        QCOMPARE(epochs[1].toObject()["seconds"].toDouble(), 12.25);
    }

    // Each device's step phases and the step count, for the speedup-gap
    // breakdown: every field of DeviceStepTiming under its schema name.
    void jsonHoldsTheStepTimings() {
        dp::RunRecord record = sample_record();
        record.steps = 96;
        record.step_totals = {{12288, 0.25, 1.5, 3.125, 0.5, 0.0625},
                              {12280, 0.375, 1.25, 3, 0.75, 0.125}};
        const QJsonObject json = parse(dp::to_json(record));
        QCOMPARE(json["steps"].toInteger(), 96);
        const QJsonArray totals = json["step_totals"].toArray();
        QCOMPARE(totals.size(), 2);
        const QJsonObject second = totals[1].toObject();
        QCOMPARE(second.size(), qsizetype(dp::step_timing_fields().size()));
        QCOMPARE(second["shard"].toInteger(), 12280);
        QCOMPARE(second["data"].toDouble(), 0.375);
        QCOMPARE(second["forward"].toDouble(), 1.25);
        QCOMPARE(second["backward"].toDouble(), 3.0);
        QCOMPARE(second["allreduce"].toDouble(), 0.75);
        QCOMPARE(second["update"].toDouble(), 0.125);
        // A run that has not ended yet has none.
        const QJsonObject running = parse(dp::to_json(sample_record()));
        QCOMPARE(running["steps"].toInteger(), 0);
        QVERIFY(running["step_totals"].isArray() && running["step_totals"].toArray().isEmpty());
    }

    // An MPI job: rank 1 failed and recorded the job's end; rank 0, sent
    // SIGCONT and SIGTERM by mpirun, neither records an epoch nor "stopped"
    // over it. Another run's record, or a stopped one, is written over.
    void aRecordedFailureIsNotReplacedByAStop() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("run.json").toStdString();
        dp::RunRecord failed = sample_record();
        failed.processes = 2;  // an mpirun record: another rank may have ended it
        failed.status = dp::RunStatus::failed;
        failed.error = "rank 0 (vm, cpu:0) did not reach the all-reduce";
        dp::write_run_record(file, failed);
        const auto sinks = [&] {
            std::vector<std::unique_ptr<dp::RunRecordSink>> list;
            list.push_back(std::make_unique<dp::JsonRecordFile>(file));
            return list;
        };
        // The same run, as rank 0 follows it (sample_record draws a new id).
        dp::RunRecord followed = sample_record();
        followed.id = failed.id;
        followed.processes = failed.processes;
        dp::RecordedRun rank0(followed, sinks());
        rank0.add_epoch({3, 0.5, 0.8, 0.8, 1.0});
        QCOMPARE(rank0.finish(dp::RunOutcome::stopped, ""), std::string());
        dp::RunRecord kept = dp::read_run_record(file);
        QCOMPARE(kept.status, dp::RunStatus::failed);
        QCOMPARE(kept.error, failed.error);
        QCOMPARE(kept.epochs.size(), failed.epochs.size());

        // Its own failure it writes; another run's record it replaces.
        dp::RecordedRun again(followed, sinks());
        again.finish(dp::RunOutcome::failed, "rank 0: out of memory");
        QCOMPARE(dp::read_run_record(file).error, std::string("rank 0: out of memory"));
        dp::RunRecord other = sample_record();
        other.id = "another-run";
        other.processes = 2;
        dp::RecordedRun next(other, sinks());
        next.finish(dp::RunOutcome::stopped, "");
        kept = dp::read_run_record(file);
        QCOMPARE(kept.id, other.id);
        QCOMPARE(kept.status, dp::RunStatus::stopped);
    }

    // A rewrite replaces the file whole and leaves no temporary behind.
    void writesAtomically() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("run.json").toStdString();
        dp::RunRecord record = sample_record();
        dp::write_run_record(file, record);
        record.epochs.pop_back();
        record.status = dp::RunStatus::stopped;
        dp::write_run_record(file, record);
        const QJsonObject json = parse(read_file(file));
        QCOMPARE(json["status"].toString(), QStringLiteral("stopped"));
        QCOMPARE(json["epochs"].toArray().size(), 1);
        for (const auto& entry : std::filesystem::directory_iterator(file.parent_path()))
            QVERIFY2(entry.path() == file, entry.path().c_str());  // no temporary left
    }

    void unwritableFolderIsAOneLineError() {
        try {
            dp::write_run_record("/nonexistent-folder/run.json", sample_record());
            QFAIL("no error");
        } catch (const dp::Error& error) {
            const std::string message = error.what();
            QVERIFY(message.find("/nonexistent-folder/run.json") != std::string::npos);
            QVERIFY(message.find('\n') == std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestRunRecord)
#include "test_run_record.moc"
