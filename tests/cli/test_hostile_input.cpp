// dp-train under hostile input, the cases of the reliability issue: each ends
// in a one-line error naming the problem and the fix, or runs as it should;
// never a crash, an abort, a replaced file, a raw C++ text or a silent NaN.
#include <signal.h>

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "core/exception_message.h"
#include "dp_train_process.h"

namespace {

// A tiny run on the DataParallel tutorial's random data: quick, and enough to save and load.
const QStringList kTinyLinear{"--model", "linear", "--dataset", "random", "--samples", "64",
                              "--batch-size", "16", "--no-history"};
// A LeNet run long enough (tens of seconds) to be interrupted after its first epoch.
const QStringList kLongLenet{"--limit-train", "2048", "--limit-test", "256", "--batch-size", "256",
                             "--epochs", "200", "--no-history"};

// A one-line message on stderr: the program's only words on failure.
void expect_one_line(const ProgramResult& result, const QString& part) {
    QVERIFY2(result.err.endsWith('\n') && result.err.count('\n') == 1, qPrintable(result.err));
    QVERIFY2(result.err.contains(part), qPrintable(result.err + " lacks: " + part));
    QVERIFY2(!result.err.contains("std::") && !result.err.contains("::_M_"), qPrintable(result.err));
}

}  // namespace

class TestHostileInput : public QObject {
    Q_OBJECT

private slots:
    // std::bad_alloc and vector::_M_default_append reached users as such: every
    // front end words exceptions through exception_message.
    void exceptionsAreWordedForUsers() {
        QCOMPARE(dp::exception_message(dp::Error("a one-line problem: the fix")),
                 std::string("a one-line problem: the fix"));
        const std::string out_of_memory = dp::exception_message(std::bad_alloc());
        QVERIFY2(out_of_memory.starts_with("out of memory: ") &&
                     out_of_memory.find("lower the batch size") != std::string::npos,
                 out_of_memory.c_str());
        try {
            // More than max_size(): vector throws length_error before allocating
            // (a real allocation this size would stop a sanitizer build instead).
            std::vector<char>(std::size_t(-1));
            QFAIL("allocated the whole address space");
        } catch (...) {
            const std::string message = dp::current_exception_message();
            QVERIFY2(message.find("::") == std::string::npos, message.c_str());
        }
        QVERIFY(dp::exception_message(std::logic_error("x")).starts_with("internal error (please report it)"));
    }

    // --batch-size 10000000 on 256 images took 22.5 GB and met the OOM
    // killer: a batch above the training set is one batch of all of it.
    void batchLargerThanTheDataIsOneBatchOfIt() {
        const auto result = run_dp_train(kTinyLinear + QStringList{"--batch-size", "10000000",
                                                                   "--epochs", "2"});
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.contains("batch size 10000000 is more than the 64 training samples: "
                                     "each epoch is one batch of all 64"),
                 qPrintable(result.out));
        QVERIFY2(result.out.contains("epoch 2/2"), qPrintable(result.out));
    }

    // A run that cannot fit is refused with the estimate before it allocates.
    void runThatCannotFitIsRefusedWithTheEstimate_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("fix");
        // 2 replicas of about 100 GB each.
        QTest::newRow("activations") << QStringList{"--model", "resnet18", "--batch-size", "60000",
                                                    "--epochs", "1", "--no-history"}
                                     << "lower --batch-size or use fewer devices";
        // 16 TB of random features, refused before they are made.
        QTest::newRow("data") << QStringList{"--model", "linear", "--dataset", "random", "--samples",
                                             "2000000000", "--input-size", "1000", "--no-history"}
                              << "lower --samples or --input-size";
    }
    void runThatCannotFitIsRefusedWithTheEstimate() {
        QFETCH(QStringList, args);
        QFETCH(QString, fix);
        const auto result = run_dp_train(args);
        QCOMPARE(result.exit_code, 1);
        expect_one_line(result, "this run needs about ");
        QVERIFY2(result.err.contains(" of memory") && result.err.contains(" is free: " + fix),
                 qPrintable(result.err));
    }

    // Paths are checked before the run starts (not after the first epoch),
    // and what is not a regular file is refused, never replaced.
    void outputPathsAreCheckedBeforeTheRun_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        for (const QString flag : {"--save", "--record"}) {
            QTest::addRow("%s device node", qPrintable(flag))
                << flag << "/dev/null" << "/dev/null is a character device, not a file";
            QTest::addRow("%s folder", qPrintable(flag))
                << flag << QDir::tempPath() << "is a folder, not a file";
            QTest::addRow("%s missing folder", qPrintable(flag))
                << flag << "/nonexistent-folder/x" << "folder /nonexistent-folder does not exist: "
                                                      "create it or choose another path";
        }
    }
    void outputPathsAreCheckedBeforeTheRun() {
        QFETCH(QString, flag);
        QFETCH(QString, path);
        QFETCH(QString, message);
        const auto result = run_dp_train(kTinyLinear + QStringList{"--epochs", "1", flag, path});
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, flag + " " + path);
        QVERIFY2(result.err.contains(message), qPrintable(result.err));
        QVERIFY2(!result.out.contains("loading"), qPrintable(result.out));  // nothing ran
        QVERIFY(std::filesystem::is_character_file("/dev/null"));
    }

    // A symlink is written through: its target gets the checkpoint.
    void symlinkedCheckpointIsWrittenThrough() {
        QTemporaryDir dir;
        const QString target = dir.filePath("target.safetensors"), link = dir.filePath("link");
        QVERIFY(QFile::link(target, link));
        QCOMPARE(run_dp_train(kTinyLinear + QStringList{"--epochs", "1", "--save", link}).exit_code, 0);
        QVERIFY(QFileInfo(link).isSymLink());
        QVERIFY(file_bytes(target).size() > 8);
    }

    // --lr 1e30 exited 0 with a checkpoint of NaN weights: now the run fails
    // as soon as the weights are not finite, and saves nothing.
    void divergedRunFailsAndSavesNothing() {
        QTemporaryDir dir;
        const QString saved = dir.filePath("diverged.safetensors");
        const auto result = run_dp_train({"--limit-train", "1024", "--limit-test", "256", "--lr",
                                          "1e30", "--epochs", "1", "--no-history", "--save", saved});
        QCOMPARE(result.exit_code, 1);
        expect_one_line(result, "training diverged at epoch 1, batch ");
        QVERIFY2(result.err.contains("NaN or infinite values (the first in ") &&
                     result.err.contains("lower the learning rate (now 1e+30)"),
                 qPrintable(result.err));
        QVERIFY(!QFile::exists(saved));
    }

    // A checkpoint holding a NaN is refused when loaded, for evaluation and for
    // training alike, and blamed (not the learning rate).
    void checkpointWithANaNIsRefused() {
        QTemporaryDir dir;
        const QString saved = dir.filePath("linear.safetensors");
        QCOMPARE(run_dp_train(kTinyLinear + QStringList{"--epochs", "1", "--save", saved}).exit_code, 0);
        QByteArray bytes = file_bytes(saved);
        quint64 header = 0;
        std::memcpy(&header, bytes.constData(), sizeof header);  // safetensors: u64 LE, then JSON
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(bytes.data() + 8 + header, &nan, sizeof nan);  // the first tensor's first value
        QFile file(saved);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        file.close();
        for (const QString epochs : {"0", "1"}) {
            const auto result = run_dp_train(kTinyLinear + QStringList{"--load", saved, "--epochs", epochs});
            QCOMPARE(result.exit_code, 1);
            expect_one_line(result, saved + ": its weights hold 1 NaN or infinite value");
            QVERIFY2(result.err.contains("load an earlier checkpoint or train from the seed"),
                     qPrintable(result.err));
            QVERIFY2(!result.out.contains("test acc"), qPrintable(result.out));
        }
    }

    // Ctrl-C ended dp-train by the signal, its record left "running": now it
    // stops after the batch in flight, records the run as stopped, and exits
    // with 130 as the shell reports an interrupted program.
    void ctrlCStopsTheRunAndRecordsIt() {
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        QProcess process;
        QVERIFY(start_until_first_epoch(process, kLongLenet + QStringList{"--record", record}));
        ::kill(pid_t(process.processId()), SIGINT);
        const auto result = finish_dp_train(process, 60000);
        QCOMPARE(result.exit_code, 130);
        QVERIFY2(result.err.contains("dp-train: stopped by Ctrl-C after "), qPrintable(result.err));
        const auto json = QJsonDocument::fromJson(file_bytes(record)).object();
        QCOMPARE(json["status"].toString(), QString("stopped"));
        QVERIFY(json["epochs"].toArray().size() >= 1);
    }

    // --compare 1,2 --scale-lr --lr 3e38 failed only after the first run
    // (the second's lr overflows): now before any.
    void scaledComparisonIsCheckedBeforeTheFirstRun() {
        const auto result = run_dp_train(kTinyLinear + QStringList{"--compare", "1,2", "--scale-lr",
                                                                   "--lr", "3e38", "--epochs", "1"});
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, "--lr must be a positive number (got inf)");
        QVERIFY2(!result.out.contains("== run"), qPrintable(result.out));
    }

    // A --record folder that vanishes mid-run printed its error twice and
    // exited 2 (a bad command line): it is a failed run, said once.
    void vanishedRecordFolderFailsTheRunOnce() {
        QTemporaryDir dir;
        const QString folder = dir.filePath("records");
        QVERIFY(QDir().mkpath(folder));
        QProcess process;
        QVERIFY(start_until_first_epoch(process,
                                        kLongLenet + QStringList{"--record", folder + "/run.json"}));
        QVERIFY(QDir(folder).removeRecursively());
        const auto result = finish_dp_train(process, 60000);
        QCOMPARE(result.exit_code, 1);
        QCOMPARE(result.err.count("run.json"), 1);
        QVERIFY2(result.err.contains("No such file or directory"), qPrintable(result.err));
    }

    // --epochs 0 --load ended with "test acc: 0.00, 0.0 sec/epoch" after the
    // real accuracy: an evaluation has no epochs to sum up.
    void evaluationOnlyEndsWithItsAccuracy() {
        QTemporaryDir dir;
        const QString saved = dir.filePath("linear.safetensors");
        QCOMPARE(run_dp_train(kTinyLinear + QStringList{"--epochs", "1", "--save", saved}).exit_code, 0);
        const auto result = run_dp_train(kTinyLinear + QStringList{"--load", saved, "--epochs", "0"});
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.trimmed().split('\n').last().contains("(evaluation only)"),
                 qPrintable(result.out));
        QVERIFY2(!result.out.contains("sec/epoch"), qPrintable(result.out));
    }

    // Round 2 (issue 32): numbers and options.

    // D1: (count + batch - 1) / batch overflowed: zero steps, "train loss
    // 0.0000", exit 0. The batch count is rounded up without overflow.
    void hugeBatchTrainsOneBatchAnEpoch() {
        const auto result = run_dp_train(kTinyLinear + QStringList{"--samples", "2048", "--batch-size",
                                                                   "2147482000", "--epochs", "2"});
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.contains("each epoch is one batch of all 2048"), qPrintable(result.out));
        QVERIFY2(result.out.contains("epoch 2/2") && !result.out.contains("train loss 0.0000"),
                 qPrintable(result.out));
    }

    // D21: the scaled batch wrapped to -294967296.
    void scaledBatchThatOverflowsIsRefused() {
        const auto result = run_dp_train(kTinyLinear + QStringList{
                                             "--compare", "1,2", "--scale-lr", "--devices",
                                             "cpu:0,cpu:1", "--batch-size", "2000000000"});
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, "--batch-size 2000000000 scaled to 2 devices is more than "
                                "2147483647: lower --batch-size");
        QVERIFY2(!result.out.contains("== run"), qPrintable(result.out));
    }

    // D9: --sync-bn=false turned synchronized BatchNorm on.
    void switchesTakeNoValue_data() {
        QTest::addColumn<QString>("option");
        for (const char* option : {"--sync-bn=false", "--no-shuffle=false", "--verbose=0",
                                   "--no-history=false", "--retune=no", "--predict=", "--scale-lr=1"})
            QTest::newRow(option) << QString(option);
    }
    void switchesTakeNoValue() {
        QFETCH(QString, option);
        const auto result = run_dp_train(kTinyLinear + QStringList{"--epochs", "1", option});
        QCOMPARE(result.exit_code, 2);
        const QString flag = option.left(option.indexOf('='));
        expect_one_line(result, flag + " is a switch and takes no value (got '" + option + "')");
        QVERIFY2(!result.out.contains("loading"), qPrintable(result.out));
    }

    // D10, D30, D23, D29, D24, D11, D14: settings that cannot run are refused
    // before anything trains, naming the flag and the fix.
    void impossibleSettingsAreRefusedUpFront_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList two{"--devices", "cpu:0,cpu:1", "--no-history"};
        QTest::newRow("compare on 1 training sample")
            << two + QStringList{"--compare", "1,2", "--limit-train", "1"}
            << "1 training sample cannot give each of the 2 devices one: raise --limit-train or "
               "use fewer devices";
        QTest::newRow("1 sample, batch 512") << two + QStringList{"--limit-train", "1", "--batch-size", "512"}
                                             << "1 training sample cannot give each of the 2 devices one";
        QTest::newRow("1 random sample") << two + QStringList{"--model", "linear", "--dataset", "random",
                                                              "--samples", "1"}
                                         << "raise --samples or use fewer devices";
        QTest::newRow("compare evaluation only")
            << two + QStringList{"--compare", "1,2", "--load", "a.safetensors", "--epochs", "0"}
            << "--compare measures training speed: set --epochs to 1 or more";
        QTest::newRow("compare 1,1") << two + QStringList{"--compare", "1,1"}
                                     << "--compare lists device counts from the baseline up, each "
                                        "once (e.g. 1,2,4; got 1,1)";
        QTest::newRow("compare 2,1") << two + QStringList{"--compare", "2,1"} << "got 2,1)";
        for (const QString output : {"--save", "--trace", "--record"})
            QTest::addRow("evaluation only %s", qPrintable(output))
                << QStringList{"--load", "a.safetensors", "--epochs", "0", output, "out.file"}
                << "--epochs 0 only evaluates --load: nothing trains, so " + output +
                       " would keep nothing";
        QTest::newRow("limit flag") << QStringList{"--limit-train", "-1"}
                                    << "--limit-train must be 0 or more (got -1)";
        QTest::newRow("samples flag") << QStringList{"--samples", "0"}
                                      << "--samples must be at least 1 (got 0)";
        for (const char* flag : {"--warmup-epochs", "--bucket-mb", "--collective-timeout"})
            QTest::addRow("%s 1e-320", flag) << QStringList{flag, "1e-320"}
                                             << QString(flag) + ": '1e-320' is too close to 0";
        // A normal number too short for any collective: it once started the
        // run, which then failed at its first broadcast.
        QTest::newRow("collective timeout 1e-45") << QStringList{"--collective-timeout", "1e-45"}
                                                  << "--collective-timeout must be at least 0.01 (got 1e-45)";
        QTest::newRow("seed 2^63") << QStringList{"--seed", "9223372036854775808"}
                                   << "--seed must be at most 9223372036854775807";
    }
    void impossibleSettingsAreRefusedUpFront() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto result = run_dp_train(args + QStringList{"--no-history"});
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, message);
        QVERIFY2(!result.err.contains("internal error"), qPrintable(result.err));
        QVERIFY2(!result.out.contains("loading"), qPrintable(result.out));  // nothing ran
    }

    // D14: the largest seed a record keeps runs, and its record reads back exactly.
    void largestRecordableSeedRuns() {
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        const auto result = run_dp_train(kTinyLinear + QStringList{"--epochs", "1", "--seed",
                                                                   "9223372036854775807",
                                                                   "--record", record});
        QCOMPARE(result.exit_code, 0);
        const auto config = QJsonDocument::fromJson(file_bytes(record)).object()["config"].toObject();
        QCOMPARE(config["seed"].toInteger(), std::numeric_limits<qint64>::max());
    }

    // D19: DP_KERNEL_TUNING=retune was accepted and ignored; junk exited 1
    // and left a failed run in the history.
    void badKernelTuningIsAUsageError_data() {
        QTest::addColumn<QString>("tuning");
        QTest::addColumn<QString>("message");
        QTest::newRow("retune") << "retune" << "DP_KERNEL_TUNING=retune is not a mode: re-measure "
                                               "the kernels with dp-train --retune";
        QTest::newRow("junk") << "junk" << "DP_KERNEL_TUNING must be cached or fixed (got 'junk')";
    }
    void badKernelTuningIsAUsageError() {
        QFETCH(QString, tuning);
        QFETCH(QString, message);
        QTemporaryDir history;
        QProcess process;
        auto env = dp_train_environment({}, history.path());
        env.insert("DP_KERNEL_TUNING", tuning);
        process.setProcessEnvironment(env);
        QStringList args = kTinyLinear;
        args.removeAll("--no-history");
        process.start(DP_TRAIN_PATH, args + QStringList{"--epochs", "1"});
        const auto result = finish_dp_train(process);
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, message);
        QVERIFY(!QFile::exists(history.filePath("runs.sqlite")));  // no failed run kept
    }

    // D34: a bad DP_CPU_DEVICES exited 1 for --list-devices, 2 for a run.
    void listDevicesWithABadEnvironmentIsAUsageError() {
        QProcess process;
        auto env = dp_train_environment();
        env.insert("DP_CPU_DEVICES", "abc");
        process.setProcessEnvironment(env);
        process.start(DP_TRAIN_PATH, {"--list-devices"});
        const auto result = finish_dp_train(process);
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, "DP_CPU_DEVICES must be a device count");
    }

    // D34: dp-gpu-selftest --help was a usage error (exit 2).
    void gpuSelftestHelpExitsZero() {
#ifndef DP_GPU_SELFTEST_PATH
        QSKIP("dp-gpu-selftest is built with the CUDA backend only");
#else
        QProcess process;
        process.start(DP_GPU_SELFTEST_PATH, {"--help"});
        const auto result = finish_dp_train(process);
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.startsWith("usage: dp-gpu-selftest"), qPrintable(result.out));
        QVERIFY(result.err.isEmpty());
#endif
    }

    // D36: 2^31 samples of 2^31 features wrapped the estimate to 18446744056.5 GB.
    void memoryEstimateDoesNotWrap() {
        const auto result = run_dp_train({"--model", "linear", "--dataset", "random", "--samples",
                                          "2147483647", "--input-size", "2147483647", "--no-history"});
        QCOMPARE(result.exit_code, 1);
        expect_one_line(result, "this run needs about 36893488130.2 GB of memory");
    }
};

QTEST_GUILESS_MAIN(TestHostileInput)
#include "test_hostile_input.moc"
