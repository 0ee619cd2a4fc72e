// dp-train's command line: parsing, and the program's exit codes and one-line
// errors as a user sees them.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "backend/onednn/onednn_backend.h"
#include "cli/cli_options.h"
#include "cli/man_page.h"
#include "study/study_file.h"
#include "models/model_registry.h"
#include "dp_train_process.h"
#include "process_locale.h"
#include "core/error.h"
#ifdef DP_HAVE_HISTORY
#include "run_history.h"
#endif

namespace {

dp::CliCommand parse(std::initializer_list<std::string> args) { return dp::parse_cli(args); }

}  // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void defaultsAreTheSeedsRun() {
        const auto command = parse({});
        QCOMPARE(command.config.model, std::string("lenet"));
        QCOMPARE(command.config.batch_size, 256);
        QCOMPARE(command.config.lr, 0.2f);
        QCOMPARE(command.config.epochs, 10);
    }

    void parsesEveryFlag() {
        const auto command =
            parse({"--model", "lenet", "--batch-size", "128", "--lr=0.05", "--epochs", "3",
                   "--seed", "7", "--data-dir", "/d", "--limit-train", "100", "--limit-test=50",
                   "--no-shuffle", "--record", "/r.json"});
        const auto& c = command.config;
        QCOMPARE(c.batch_size, 128);
        QCOMPARE(c.lr, 0.05f);
        QCOMPARE(c.epochs, 3);
        QCOMPARE(c.seed, std::uint64_t(7));
        QCOMPARE(c.data_dir, std::string("/d"));
        QCOMPARE(c.limit_train, 100);
        QCOMPARE(c.limit_test, 50);
        QVERIFY(!c.shuffle);
        QCOMPARE(c.record_path, std::string("/r.json"));
        QVERIFY(!command.distributed);
    }

    void helpListsModels() {
        QCOMPARE(parse({"--help"}).action, dp::CliCommand::Action::help);
        QVERIFY(dp::cli_help().find("lenet") != std::string::npos);
    }

    // --version: the version, the commit and the backends with their
    // libraries' versions, before any setting is looked at.
    void versionNamesTheBuildAndItsBackends() {
        QCOMPARE(parse({"--version", "--batch-size", "x"}).action, dp::CliCommand::Action::version);
        const auto result = run_dp_train({"--version"});
        QCOMPARE(result.exit_code, 0);
        const QStringList lines = result.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QVERIFY2(QRegularExpression("^dp-train \\d+\\.\\d+\\.\\d+ \\((git [0-9a-f]+|not built from a git checkout)\\)$")
                     .match(lines[0]).hasMatch(),
                 qPrintable(lines[0]));
        QVERIFY2(QRegularExpression("^backends: oneDNN \\d+\\.\\d+\\.\\d+ \\(\\w+\\); ").match(lines[1]).hasMatch(),
                 qPrintable(lines[1]));
        QVERIFY2(lines[2].startsWith("MPI: "), qPrintable(lines[2]));
        QVERIFY(dp::cli_help().find("--version") != std::string::npos);
    }

    // dp-train(1) lists every option --help lists (both come from
    // help_sections), with its text, each model, and is troff man reads.
    void manPageListsEveryOptionOfHelp() {
        const QString page = QString::fromStdString(dp::cli_man_page("1.2.3"));
        QVERIFY(page.startsWith(".TH DP\\-TRAIN 1 "));
        const QString help = QString::fromStdString(dp::cli_help());
        QRegularExpression flag("^  (?:-h, )?(--[a-z0-9-]+)", QRegularExpression::MultilineOption);
        int flags = 0;
        for (const auto& match : flag.globalMatch(help)) {
            QString roffed = match.captured(1);
            roffed.replace("-", "\\-");
            QVERIFY2(page.contains(roffed + "\\fR"), qPrintable(match.captured(1)));
            ++flags;
        }
        QVERIFY(flags > 30);
        QVERIFY(page.contains("global batch size, split across the devices (default 256)"));
        // A setting added to the schema alone is in both.
        QVERIFY(help.contains("--weight-decay X") && page.contains("\\-\\-weight\\-decay"));
        for (const auto& model : dp::model_registry())
            QVERIFY(page.contains("\\fB" + QString::fromStdString(model.name).replace("-", "\\-") + "\\fR"));
        // No line may start with a dot that is not a request troff knows here.
        for (const QString& line : page.split('\n'))
            if (line.startsWith('.'))
                QVERIFY2(QRegularExpression("^\\.(TH|SH|SS|TP|B)( |$)").match(line).hasMatch(), qPrintable(line));
    }

    void rejectsBadArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown flag") << QStringList{"--bogus"} << "unknown option '--bogus'";
        QTest::newRow("missing value") << QStringList{"--lr"} << "--lr needs a value";
        QTest::newRow("not a number") << QStringList{"--epochs", "ten"} << "not a valid number";
        QTest::newRow("trailing junk") << QStringList{"--batch-size", "12x"} << "not a valid number";
        QTest::newRow("zero batch") << QStringList{"--batch-size", "0"} << "--batch-size must be positive";
        QTest::newRow("negative lr") << QStringList{"--lr", "-0.1"} << "--lr must be";
        QTest::newRow("nan lr") << QStringList{"--lr", "nan"} << "--lr must be";
        QTest::newRow("zero epochs") << QStringList{"--epochs", "0"} << "epochs must be positive";
        QTest::newRow("unknown model") << QStringList{"--model", "vgg"} << "unknown model 'vgg'";
        QTest::newRow("unknown dataset") << QStringList{"--dataset", "cifar"} << "unknown dataset 'cifar'";
        QTest::newRow("mnist-format without folder")
            << QStringList{"--dataset", "mnist-format"} << "needs --data-dir";
        QTest::newRow("unknown precision")
            << QStringList{"--precision", "fp16"} << "unknown precision 'fp16' (known: fp32, fp32-fast, bf16, tf32)";
        QTest::newRow("tf32 on a CPU")
            << QStringList{"--precision", "tf32", "--devices", "cpu:0"}
            << "--precision tf32: TF32 is a GPU tensor-core format and cpu:0 is a CPU device";
        QTest::newRow("record of a comparison")
            << QStringList{"--compare", "1,2", "--record", "r.json"} << "--record keeps one run";
        QTest::newRow("report without a comparison")
            << QStringList{"--report", "r.json"} << "--report writes a comparison: add --compare 1,N";
        QTest::newRow("report in a missing folder")
            << QStringList{"--compare", "1,2", "--report", "/nonexistent-folder/r.json"}
            << "--report /nonexistent-folder/r.json: folder /nonexistent-folder does not exist";
        QTest::newRow("slow device without a factor")
            << QStringList{"--devices", "cpu:0x2", "--slow-device", "cpu:0#1"}
            << "--slow-device 'cpu:0#1': no '=' before a factor; write DEVICE=FACTOR, e.g. cpu:1=1.5";
        QTest::newRow("slow device faster")
            << QStringList{"--devices", "cpu:0x2", "--slow-device=cpu:0#1=0.5"}
            << "the factor must be from 1 to 100 (got 0.5)";
        QTest::newRow("slow device the run lacks")
            << QStringList{"--devices", "cpu:0", "--slow-device", "cpu:0#1=2"}
            << "--slow-device names cpu:0#1, which this run does not train on (its devices: cpu:0)";
        QTest::newRow("profile of no step")
            << QStringList{"--profile-ops", "0"} << "--profile-ops must be 1 to 1000 steps (got 0)";
        QTest::newRow("predict without training")
            << QStringList{"--predict", "--load", "c.safetensors", "--epochs", "0"}
            << "--predict needs a run to predict from";
        // --sweep's grid: each bad spec named with its fix.
        QTest::newRow("sweep without a grid") << QStringList{"--sweep"} << "--sweep needs a value";
        QTest::newRow("sweep unknown key")
            << QStringList{"--sweep", "gpus=1,2"}
            << "--sweep: unknown key 'gpus'; sweep one of devices, batch-size, lr (e.g. devices=1,2)";
        QTest::newRow("sweep axis without values")
            << QStringList{"--sweep", "devices"} << "--sweep: 'devices' is not KEY=VALUES; write e.g. devices=1,2";
        QTest::newRow("sweep empty values")
            << QStringList{"--sweep", "devices="} << "--sweep devices=: an empty value; list the values";
        QTest::newRow("sweep empty item")
            << QStringList{"--sweep", "batch-size=64,,256"} << "--sweep batch-size=64,,256: an empty value";
        QTest::newRow("sweep bad number")
            << QStringList{"--sweep", "batch-size=64,big"} << "--sweep batch-size: 'big' is not a whole number";
        QTest::newRow("sweep bad lr")
            << QStringList{"--sweep", "lr=0.1,fast"} << "--sweep lr: 'fast' is not a number (e.g. lr=0.1,0.2)";
        QTest::newRow("sweep zero devices")
            << QStringList{"--sweep", "devices=0,1"} << "--sweep devices: 0 is not above 0";
        QTest::newRow("sweep value twice")
            << QStringList{"--sweep", "lr=0.1,0.1"} << "--sweep lr lists 0.1 twice; list each value once";
        QTest::newRow("sweep key twice")
            << QStringList{"--sweep", "devices=1", "devices=2"} << "--sweep names devices twice";
        QTest::newRow("sweep index past the grid")
            << QStringList{"--sweep", "devices=1,2", "--sweep-index", "2"}
            << "--sweep-index 2 is past the grid's last point: it has 2 (0 to 1)";
        QTest::newRow("sweep index without a sweep")
            << QStringList{"--sweep-index", "0"} << "--sweep-index goes with a sweep: add --sweep KEY=LIST";
        QTest::newRow("sweep and compare")
            << QStringList{"--compare", "1,2", "--sweep", "devices=1,2"}
            << "--sweep and --compare both plan the runs: give one";
        QTest::newRow("compare and sweep")
            << QStringList{"--sweep", "devices=1,2", "--compare", "1,2"}
            << "--sweep and --compare both plan the runs: give one";
        QTest::newRow("sweep with record")
            << QStringList{"--sweep", "devices=1,2", "--record", "r.json"} << "--record keeps one run; --sweep makes several";
        QTest::newRow("sweep csv in a missing folder")
            << QStringList{"--sweep", "devices=1,2", "--sweep-csv", "/nonexistent-folder/t.csv"}
            << "--sweep-csv /nonexistent-folder/t.csv: folder /nonexistent-folder does not exist";
        QTest::newRow("csv without a study") << QStringList{"--csv"} << "--csv goes with --export-study FILE";
#ifdef DP_HAVE_MPI
        QTest::newRow("predict with distributed")
            << QStringList{"--distributed", "--predict"} << "run it without --distributed";
        QTest::newRow("distributed with devices")
            << QStringList{"--distributed", "--devices", "cpu:0"} << "does not combine with --distributed";
        QTest::newRow("distributed with a straggler")
            << QStringList{"--distributed", "--slow-device", "cpu:0=2"}
            << "--slow-device slows a device of a one-process run; it does not combine with --distributed";
        QTest::newRow("distributed with dataparallel")
            << QStringList{"--distributed", "--allreduce", "dataparallel"}
            << "--allreduce dataparallel gathers every device's outputs in one process, as nn.DataParallel "
               "does; it does not combine with --distributed";
#else
        QTest::newRow("distributed without MPI")
            << QStringList{"--distributed"} << "--distributed needs MPI";
#endif
    }
    void rejectsBadArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        std::vector<std::string> argv;
        for (const auto& a : args) argv.push_back(a.toStdString());
        try {
            dp::parse_cli(argv);
            QFAIL("accepted bad arguments");
        } catch (const dp::Error& error) {
            QVERIFY2(QString(error.what()).contains(message), error.what());
        }
        // The program says the same in one line and exits with code 2.
        const auto result = run_dp_train(args);
        QCOMPARE(result.exit_code, 2);
        QCOMPARE(result.err.count('\n'), 1);
        QVERIFY2(result.err.contains(message), qPrintable(result.err));
    }

    // The DataParallel tutorial's toy: a linear layer on 100 random 5-feature samples, batch 30
    // (30, 30, 30, 10: the last batch is partial).
    void linearToyTrainsOnRandomData() {
        const auto result = run_dp_train({"--model", "linear", "--dataset", "random", "--input-size",
                                          "5", "--samples", "100", "--batch-size", "30",
                                          "--epochs", "2"});
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.contains("100 training and 100 test images"), qPrintable(result.out));
        QVERIFY2(result.out.contains("linear: 12 parameters"), qPrintable(result.out));
        QVERIFY2(result.out.contains("epoch 2/2"), qPrintable(result.out));
    }

    // --profile-ops (issue 40): a tiny LeNet run prints, after its steady
    // steps, the table of ms per op family and per layer.
    void profileOpsPrintsTheTablePerFamilyAndLayer() {
        const auto result = run_dp_train({"--limit-train", "64", "--limit-test", "32", "--batch-size",
                                          "32", "--epochs", "1", "--profile-ops", "1",
                                          "--devices", "cpu:0", "--no-history"});
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.contains("op profile of cpu:0, mean of 1 step"), qPrintable(result.out));
        for (const char* row : {"conv forward", "conv backward weights", "linear", "loss", "update",
                                "batch gather", "layer 1 conv1: 1x28x28 -> 20x26x26", "layer 2: 20x26x26 -> 20x13x13", "outside layers"})
            QVERIFY2(result.out.contains(row), qPrintable(QString(row) + " missing in:\n" + result.out));
    }

    // --record: the run record, rewritten after every epoch and at the end.
    void recordKeepsEveryEpochAndTheOutcome() {
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        const auto result = run_dp_train({"--limit-train", "64", "--limit-test", "32", "--batch-size",
                                          "32", "--epochs", "2", "--record", record});
        QCOMPARE(result.exit_code, 0);
        QFile file(record);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(json["status"].toString(), QString("finished"));
        QCOMPARE(json["source"].toString(), QString("dp-train"));
        QCOMPARE(json["processes"].toInt(), 1);
        QCOMPARE(json["epochs"].toArray().size(), 2);
        // The step timings, for the speedup-gap breakdown: the steady epochs'
        // (the second's 2 steps), as sec/epoch leaves the first out too.
        QCOMPARE(json["steps"].toInt(), 2);
        QCOMPARE(json["step_epochs"].toInt(), 1);
        const QJsonArray totals = json["step_totals"].toArray();
        QVERIFY(!totals.isEmpty());
        int samples = 0;
        for (const QJsonValue& device : totals) {
            samples += device["shard"].toInt();
            QVERIFY(device["forward"].toDouble() > 0 && device["backward"].toDouble() > 0);
        }
        QCOMPARE(samples, 64);

        const auto failed = run_dp_train({"--data-dir", "/nonexistent/fashion", "--record", record});
        QCOMPARE(failed.exit_code, 1);
        file.close();  // the record was replaced (renamed over), not rewritten in place
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto failed_json = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(failed_json["status"].toString(), QString("failed"));
        QVERIFY(failed_json["error"].toString().startsWith("/nonexistent/fashion"));
    }

    // dp-train keeps its runs in the workbench's history, epochs and outcome,
    // unless told not to.
    void runsGoIntoTheWorkbenchHistory() {
#ifndef DP_HAVE_HISTORY
        QSKIP("dp-train was built without the run history (Qt SQL, built with the GUI)");
#else
        QTemporaryDir dir;
        const QStringList tiny{"--limit-train", "64", "--limit-test", "32", "--batch-size", "32",
                               "--epochs", "2"};
        QCOMPARE(run_dp_train(tiny, {}, dir.path()).exit_code, 0);
        QCOMPARE(run_dp_train(tiny + QStringList{"--no-history"}, {}, dir.path()).exit_code, 0);
        qputenv("DP_WORKBENCH_DATA_DIR", dir.path().toUtf8());
        const auto runs = RunHistory().runs();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].source, std::string("dp-train"));
        QCOMPARE(runs[0].status, dp::RunStatus::finished);
        QCOMPARE(runs[0].epochs.size(), std::size_t(2));
        QCOMPARE(runs[0].config.limit_train, 64);
#endif
    }

    // Issue 43: under LC_ALL=de_DE.UTF-8 (tr_TR, fr_FR alike) the history
    // stored lr 0.05, warm-up 0.5 and bucket 0.5 as 0 and a 30.5 s timeout as
    // 30, and dp-train printed "lr 0,05" and "train loss 2,3026". Its numbers
    // are the C locale's in every locale; the record and history agree.
    void runsUnderADecimalCommaLocaleKeepTheirDecimals() {
#ifndef DP_HAVE_HISTORY
        QSKIP("dp-train was built without the run history (Qt SQL, built with the GUI)");
#else
        {
            SET_PROCESS_LOCALE("de_DE.UTF-8");  // only that it is there
        }
        QTemporaryDir dir;
        QProcess process;
        QProcessEnvironment env = dp_train_environment({}, dir.path());
        env.insert("LC_ALL", "de_DE.UTF-8");
        process.setProcessEnvironment(env);
        const QString record = dir.filePath("run.json");
        process.start(DP_TRAIN_PATH, {"--limit-train", "64", "--limit-test", "32", "--batch-size", "32",
                                      "--epochs", "2", "--lr", "0.05", "--warmup-epochs", "0.5",
                                      "--bucket-mb", "0.5", "--collective-timeout", "30.5",
                                      "--record", record});
        const ProgramResult result = finish_dp_train(process);
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.contains("lr 0.05,"), qPrintable(result.out));
        QVERIFY2(QRegularExpression("epoch 2/2: train loss \\d+\\.\\d{4}, train acc \\d\\.\\d{3}, ")
                     .match(result.out).hasMatch(),
                 qPrintable(result.out));
        QVERIFY2(!QRegularExpression("\\d,\\d").match(result.out).hasMatch(), qPrintable(result.out));

        qputenv("DP_WORKBENCH_DATA_DIR", dir.path().toUtf8());
        const auto runs = RunHistory().runs();
        QCOMPARE(runs.size(), std::size_t(1));
        const dp::TrainConfig& config = runs[0].config;
        QCOMPARE(config.lr, 0.05f);
        QCOMPARE(config.warmup_epochs, 0.5);
        QCOMPARE(config.bucket_mb, 0.5);
        QCOMPARE(config.collective_timeout_s, 30.5);
        const auto json = QJsonDocument::fromJson(file_bytes(record)).object()["config"].toObject();
        QCOMPARE(json["lr"].toDouble(), 0.05);  // float 0.05f, shortest
        QCOMPARE(json["collective_timeout_s"].toDouble(), 30.5);
#endif
    }

    // The same settings and seed give the same bits, with kernels chosen as
    // users get them: measured by timing on the first run (cold cache), read
    // back from kernel-choices.tsv by the second.
    void repeatedRunsAreBitIdenticalWithMeasuredKernels_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("precision");
        QTest::newRow("lenet") << "lenet" << "fp32";
        QTest::newRow("resnet18-narrow") << "resnet18-narrow" << "fp32";
        QTest::newRow("resnet18-narrow bf16") << "resnet18-narrow" << "bf16";
    }
    void repeatedRunsAreBitIdenticalWithMeasuredKernels() {
        QFETCH(QString, model);
        QFETCH(QString, precision);
        if (precision == "bf16" && !dp::OneDnnBackend::computes_bf16())
            QSKIP("this CPU lacks AVX512_BF16 and AMX");
        QTemporaryDir dir;
        const QByteArray tuning = qgetenv("DP_KERNEL_TUNING");
        qputenv("DP_KERNEL_TUNING", "cached");
        const QStringList run{"--model", model, "--limit-train", "640", "--limit-test", "64",
                              "--batch-size", "64", "--epochs", "2", "--seed", "7",
                              "--precision", precision,
                              "--devices", "cpu:0,cpu:1", "--no-history", "--save"};
        const auto first = run_dp_train(run + QStringList{dir.filePath("a.safetensors")}, {},
                                        dir.path());
        const auto second = run_dp_train(run + QStringList{dir.filePath("b.safetensors")}, {},
                                         dir.path());
        qputenv("DP_KERNEL_TUNING", tuning);
        QCOMPARE(first.exit_code, 0);
        QCOMPARE(second.exit_code, 0);
        QFile cache(dir.filePath("kernel-choices.tsv"));
        QVERIFY(cache.open(QIODevice::ReadOnly));
        // Measured: LeNet's two convolutions' forward and weight gradients, and
        // the second's input gradient (resnet18-narrow has more).
        QVERIFY(cache.readAll().count("| conv ") >= 5);
        QFile a(dir.filePath("a.safetensors")), b(dir.filePath("b.safetensors"));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QVERIFY(a.readAll() == b.readAll());
        // The epoch lines (loss, accuracies) agree too; only the seconds differ.
        const auto without_seconds = [](const QString& out) {
            return out.split('\n').filter("epoch ").replaceInStrings(QRegularExpression(", [0-9.]+ sec"), "");
        };
        QCOMPARE(without_seconds(second.out), without_seconds(first.out));
    }

    // A CPU without bf16 kernels refuses --precision bf16 in one line before
    // anything runs. ONEDNN_MAX_CPU_ISA makes oneDNN act as such a CPU; it is
    // read at oneDNN's first call, hence a process of its own.
    void bf16IsRefusedWithoutBf16Hardware() {
        QProcess process;
        auto env = dp_train_environment();
        env.insert("ONEDNN_MAX_CPU_ISA", "AVX512_CORE");
        process.setProcessEnvironment(env);
        process.start(DP_TRAIN_PATH, {"--precision", "bf16", "--devices", "cpu:0",
                                      "--limit-train", "64", "--epochs", "1", "--no-history"});
        const auto result = finish_dp_train(process);
        QCOMPARE(result.exit_code, 2);
        QCOMPARE(result.err.count('\n'), 1);
        QVERIFY2(result.err.contains(
                     "--precision bf16: this CPU lacks AVX512_BF16 and AMX: use --precision fp32"),
                 qPrintable(result.err));
    }

    // A bf16 run trains, and says so in its record, its label and its first lines.
    void bf16RunRecordsItsPrecision() {
        if (!dp::OneDnnBackend::computes_bf16()) QSKIP("this CPU lacks AVX512_BF16 and AMX");
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        const auto result = run_dp_train({"--precision", "bf16", "--limit-train", "256",
                                          "--limit-test", "64", "--batch-size", "64", "--epochs",
                                          "1", "--devices", "cpu:0", "--no-history", "--record",
                                          record});
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.contains("all-reduce ring, bf16, on cpu:0"), qPrintable(result.out));
        QFile file(record);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(json["status"].toString(), QString("finished"));
        QCOMPARE(json["config"].toObject()["precision"].toString(), QString("bf16"));
    }

    // --compare 1,2 at one global batch: the table adds the 2-device run's
    // parameter drift from the 1-device run, float rounding only.
    void compareShowsTheDriftFromTheFirstRun() {
        const auto result = run_dp_train({"--compare", "1,2", "--limit-train", "256", "--limit-test",
                                          "64", "--batch-size", "64", "--epochs", "2",
                                          "--no-history"});
        QCOMPARE(result.exit_code, 0);
        const QStringList lines = result.out.split('\n');
        const auto header = lines.indexOf(QRegularExpression("^devices .* drift vs first$"));
        QVERIFY2(header >= 0, qPrintable(result.out));
        QVERIFY(lines[header + 1].trimmed().endsWith(" -"));  // the first run itself
        const double drift = lines[header + 2].split(' ', Qt::SkipEmptyParts).last().toDouble();
        QVERIFY2(drift > 0 && drift < 1e-5, qPrintable(lines[header + 2]));
    }

    // --allreduce dataparallel: --help and the man page document it, and a
    // comparison's gap breakdown names DataParallel's own parts.
    void dataParallelIsDocumentedAndBreaksDownItsGap() {
        QCOMPARE(parse({"--allreduce", "dataparallel"}).config.allreduce, dp::AllReduceStrategy::dataparallel);
        QVERIFY(dp::cli_help().find("dataparallel (nn.DataParallel's") != std::string::npos);
        QVERIFY(QString::fromStdString(dp::cli_man_page("1.2.3")).contains("dataparallel"));
        const auto result = run_dp_train({"--compare", "1,2", "--allreduce", "dataparallel",
                                          "--limit-train", "256", "--limit-test", "64",
                                          "--batch-size", "64", "--epochs", "2", "--no-history"});
        QCOMPARE(result.exit_code, 0);
        for (const char* part : {"serial update on device 0 (the others wait)",
                                 "parameter broadcast from device 0",
                                 "output gather to device 0 and scatter back"})
            QVERIFY2(result.out.contains(part), qPrintable(result.out));
    }

    // --slow-device: repeated or listed; a comparison says it ran with a
    // straggler, its 1-device run unslowed, and its gap names the wait.
    void slowDeviceMakesAStraggler() {
        QCOMPARE(parse({"--devices", "cpu:0x3", "--slow-device", "cpu:0#1=1.5", "--slow-device=cpu:0#2=2"})
                     .config.slow_devices,
                 (std::vector<std::string>{"cpu:0#1=1.5", "cpu:0#2=2"}));
        QCOMPARE(parse({"--devices", "cpu:0x3", "--slow-device", "cpu:0#1=1.5,cpu:0#2=2"}).config.slow_devices,
                 (std::vector<std::string>{"cpu:0#1=1.5", "cpu:0#2=2"}));
        QVERIFY(dp::cli_help().find("--slow-device ID=X") != std::string::npos);
        const auto result = run_dp_train({"--compare", "1,2", "--slow-device", "cpu:1=1.5",
                                          "--limit-train", "256", "--limit-test", "64",
                                          "--batch-size", "64", "--epochs", "2", "--no-history"});
        QCOMPARE(result.exit_code, 0);
        for (const char* line : {"on cpu:0, cpu:1, straggler: cpu:1 1.5x slower",
                                 "with a straggler: cpu:1 1.5x slower; the 1-device run has none "
                                 "of them and ran unslowed",
                                 "waiting for the slowest device"})
            QVERIFY2(result.out.contains(line), qPrintable(result.out));
    }

    // --repeat: the comparison R times, counts alternating, then each count's
    // median speedup and its range; every run's sec/epoch is its steady
    // epochs' median with their range.
    void compareRepeatsAndGivesTheMedianSpeedup() {
        QTemporaryDir dir;
        const QString report = dir.filePath("report.json");
        const auto result = run_dp_train({"--compare", "1,2", "--repeat", "2", "--model", "linear",
                                          "--dataset", "random", "--samples", "512",
                                          "--batch-size", "64", "--epochs", "3", "--no-history",
                                          "--report", report});
        QCOMPARE(result.exit_code, 0);
        const QStringList runs = result.out.split('\n').filter(QRegularExpression("^== run "));
        QCOMPARE(runs.size(), 4);
        QVERIFY2(runs[0].startsWith("== run 1 of 2, repeat 1 of 2: 1 device") &&
                     runs[1].startsWith("== run 2 of 2, repeat 1 of 2: 2 device") &&
                     runs[2].startsWith("== run 1 of 2, repeat 2 of 2: 1 device"),
                 qPrintable(runs.join('\n')));
        const QRegularExpressionMatch printed =
            QRegularExpression("\nspeedup, median and range of 2 repeats:\n2 devices: ([0-9.]+)x "
                               "\\(([0-9.]+)-([0-9.]+)\\) over 2 repeats: (faster|slower|no "
                               "measurable difference)\n")
                .match(result.out);
        QVERIFY2(printed.hasMatch(), qPrintable(result.out));
        // The report holds every repeat, and the medians and ranges printed.
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(json["version"].toInt(), 2);
        const QJsonArray repeats = json["repeats"].toArray();
        QCOMPARE(repeats.size(), 2);
        std::vector<double> speedups;
        for (const QJsonValue& repeat : repeats) {
            const QJsonArray rows = repeat["runs"].toArray();
            QCOMPARE(rows.size(), 2);
            speedups.push_back(rows[1]["speedup"].toDouble());
            QVERIFY(rows[1]["load"].isObject() && rows[1]["load"]["cores"].toInt() > 0);
        }
        const QJsonArray summary = json["speedups"].toArray();
        QCOMPARE(summary.size(), 1);
        const QJsonObject two = summary[0].toObject();
        QCOMPARE(two["devices"].toInt(), 2);
        QCOMPARE(two["repeats"].toInt(), 2);
        QCOMPARE(two["min"].toDouble(), *std::min_element(speedups.begin(), speedups.end()));
        QCOMPARE(two["max"].toDouble(), *std::max_element(speedups.begin(), speedups.end()));
        QCOMPARE(QString::number(two["median"].toDouble(), 'f', 2), printed.captured(1));
        QCOMPARE(QString::number(two["min"].toDouble(), 'f', 2), printed.captured(2));
        QCOMPARE(QString::number(two["max"].toDouble(), 'f', 2), printed.captured(3));
        QCOMPARE(two["verdict"].toString(), printed.captured(4));
        QVERIFY(result.out.contains(QRegularExpression("sec/epoch +range")));
        QCOMPARE(run_dp_train({"--repeat", "2"}).exit_code, 2);  // only with --compare
        QCOMPARE(run_dp_train({"--compare", "1,2", "--repeat", "0"}).exit_code, 2);
    }

    // --report: the comparison as one JSON object, each 2-device run's gap
    // split into parts that add up to it.
    void compareWritesTheReport() {
        QTemporaryDir dir;
        const QString report = dir.filePath("report.json");
        const auto result = run_dp_train({"--compare", "1,2", "--limit-train", "256", "--limit-test",
                                          "64", "--batch-size", "64", "--epochs", "2",
                                          "--no-history", "--report", report});
        QCOMPARE(result.exit_code, 0);
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonObject json = QJsonDocument::fromJson(file.readAll(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(json["format"].toString(), QString("dp-train comparison report"));
        QCOMPARE(json["version"].toInt(), 2);
        const QJsonArray runs = json["runs"].toArray();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0]["devices"].toInt(), 1);
        QCOMPARE(runs[1]["devices"].toInt(), 2);
        QCOMPARE(runs[1]["global_batch"].toInt(), 64);
        QCOMPARE(runs[1]["lr"].toDouble(), 0.2);
        QCOMPARE(runs[0]["speedup"].toDouble(), 1.0);
        for (const char* key : {"seconds_per_epoch", "speedup", "efficiency", "final_test_acc"})
            QVERIFY2(runs[1][key].toDouble() > 0, key);
        QVERIFY(runs[0]["parameter_drift"].isNull());
        QVERIFY(runs[1]["parameter_drift"].toDouble() > 0);
        const QJsonArray gaps = json["speedup_gaps"].toArray();
        QCOMPARE(gaps.size(), 1);
        const QJsonObject gap = gaps[0].toObject();
        QCOMPARE(gap["devices"].toInt(), 2);
        QCOMPARE(gap["measured"].toDouble(), runs[1]["seconds_per_epoch"].toDouble());
        QCOMPARE(gap["ideal"].toDouble(), runs[0]["seconds_per_epoch"].toDouble() / 2);
        QVERIFY(std::abs(gap["gap"].toDouble() - (gap["measured"].toDouble() - gap["ideal"].toDouble())) < 1e-12);
        const QJsonArray parts = gap["parts"].toArray();
        QCOMPARE(parts.size(), 6);
        double seconds = 0, shares = 0;
        for (const QJsonValue& part : parts) {
            seconds += part["seconds"].toDouble();
            shares += part["share"].toDouble();
            QVERIFY(!part["name"].toString().isEmpty());
            // Settings named by their flags, as dp-train's own lines name them.
            QVERIFY2(!part["advice"].toString().contains('{'), qPrintable(part["advice"].toString()));
        }
        QVERIFY(std::abs(seconds - gap["gap"].toDouble()) < 1e-9);
        // Shares are of the time lost; a gap within the noise, or none (the
        // 2-device run as fast as ideal on a busy machine), has no shares at all.
        const bool shared = gap["gap"].toDouble() > 0 && gap["gap"].toDouble() > gap["noise"].toDouble() &&
                            gap["lost"].toDouble() > 0;
        QVERIFY2(std::abs(shares - (shared ? 1 : 0)) < 1e-9,
                 qPrintable(QString("shares %1, gap %2, noise %3").arg(shares).arg(gap["gap"].toDouble())
                                .arg(gap["noise"].toDouble())));
        // LeNet's gradients fit one bucket: no advice to grow it.
        QVERIFY2(!parts[1]["advice"].toString().contains("--bucket-mb") &&
                     parts[1]["advice"].toString().contains("--batch-size"),
                 qPrintable(parts[1]["advice"].toString()));
        // One repeat: the speedup's range would come from the runs' steady
        // epochs, but 2 epochs leave one each, which measures no spread: no
        // range and no verdict, whatever the two epochs said.
        const QJsonObject speedup = json["speedups"].toArray()[0].toObject();
        QCOMPARE(speedup["range_from"].toString(), QString("steady epochs"));
        QVERIFY(speedup["min"].isNull() && speedup["max"].isNull());
        QCOMPARE(speedup["median"].toDouble(), runs[1]["speedup"].toDouble());
        QCOMPARE(speedup["verdict"].toString(), QString("too few epochs to tell"));
        QVERIFY2(result.out.contains("(no range) from the steady epochs: too few epochs to tell"), qPrintable(result.out));
        // The verdict is the one printed.
        QVERIFY2(result.out.contains("verdict: " + gap["verdict"].toString()), qPrintable(result.out));
    }

    // --sweep: every grid point's runs under a header, then one table (a
    // row per point, the baseline first in each cell), one study file
    // holding every run's record, and the table as CSV.
    void sweepPrintsOneTableAndKeepsTheStudy() {
        QTemporaryDir dir;
        const QString study_path = dir.filePath("study.json"), csv_path = dir.filePath("table.csv");
        const auto result = run_dp_train({"--sweep", "devices=1,2", "batch-size=32,64", "--repeat", "2",
                                          "--model", "linear", "--dataset", "random", "--samples",
                                          "256", "--epochs", "2", "--no-history", "--study-out",
                                          study_path, "--sweep-csv", csv_path});
        QCOMPARE(result.exit_code, 0);
        const QStringList lines = result.out.split('\n');
        const QStringList runs = lines.filter(QRegularExpression("^== run "));
        QCOMPARE(runs.size(), 8);
        QVERIFY2(runs[0].startsWith("== run 1 of 4, repeat 1 of 2: 1 device, global batch 32") &&
                     runs[3].startsWith("== run 4 of 4, repeat 1 of 2: 2 devices, global batch 64") &&
                     runs[4].startsWith("== run 1 of 4, repeat 2 of 2: 1 device, global batch 32"),
                 qPrintable(runs.join('\n')));
        const auto header = lines.indexOf(QRegularExpression("^devices +batch +lr +s/epoch \\(range\\) +speedup \\(range\\) +efficiency +test acc$"));
        QVERIFY2(header >= 0, qPrintable(result.out));
        const QRegularExpression row("^ +([12]) +(32|64) +0\\.2 +[0-9.]+ \\([0-9.]+-[0-9.]+\\) +(baseline|[0-9.]+x \\([0-9.]+-[0-9.]+\\) (faster|slower|no measurable difference)) +[0-9]+% +[0-9.]+");
        const QStringList expected{"1 32", "2 32", "1 64", "2 64"};
        for (int i = 0; i < 4; ++i) {
            const QRegularExpressionMatch match = row.match(lines[header + 1 + i]);
            QVERIFY2(match.hasMatch(), qPrintable(lines[header + 1 + i]));
            QCOMPARE(match.captured(1) + " " + match.captured(2), expected[i]);
            QCOMPARE(match.captured(3) == "baseline", match.captured(1) == "1");
        }
        QVERIFY2(result.out.contains("\nstudy: " + study_path + "\n"), qPrintable(result.out));

        // The study file: every run's record, the table worked out from them.
        const dp::Study study = dp::read_study(study_path.toStdString());
        QCOMPARE(study.kind, dp::StudyKind::sweep);
        QCOMPARE(study.grid, std::string("devices=1,2 batch-size=32,64"));
        QCOMPARE(study.repeats, 2);
        QCOMPARE(study.runs.size(), std::size_t(8));
        for (const dp::RunRecord& run : study.runs) {
            QCOMPARE(run.status, dp::RunStatus::finished);
            QCOMPARE(run.epochs.size(), std::size_t(2));
            // A cell's runs are each other's baseline; the cells are apart.
            QCOMPARE(run.comparison_group == study.runs[0].comparison_group,
                     run.config.batch_size == 32);
        }
        const std::vector<dp::StudyRow> table = study.table();
        QCOMPARE(table.size(), std::size_t(4));
        for (const dp::StudyRow& point : table) {
            QCOMPARE(point.repeats, 2);
            QCOMPARE(point.baseline_devices, 1);
            QVERIFY(point.seconds_min <= point.seconds_per_epoch && point.seconds_per_epoch <= point.seconds_max);
            QVERIFY(point.speedup_min <= point.speedup && point.speedup <= point.speedup_max);
            QCOMPARE(point.efficiency, point.speedup / point.devices);
        }
        QCOMPARE(table[0].speedup, 1.0);
        // The round trip: what the reader gives back writes the same file.
        const QByteArray written = file_bytes(study_path);
        QCOMPARE(QByteArray::fromStdString(dp::study_json(study)), written);
        QCOMPARE(QByteArray::fromStdString(dp::study_json(dp::study_from_json(written.toStdString()))), written);

        // The CSV: a header of column names, a row per point, '.' decimals.
        const QStringList csv = QString(file_bytes(csv_path)).trimmed().split('\n');
        QCOMPARE(csv.size(), 5);
        QCOMPARE(csv[0], QString("devices,batch_size,lr,repeats,seconds_per_epoch,seconds_per_epoch_min,"
                                 "seconds_per_epoch_max,speedup,speedup_min,speedup_max,verdict,"
                                 "baseline_devices,efficiency,final_test_acc,busy"));
        for (int i = 1; i < csv.size(); ++i) {
            const QStringList fields = csv[i].split(',');
            QCOMPARE(fields.size(), 15);
            QCOMPARE(fields[0] + " " + fields[1], expected[i - 1]);
            QCOMPARE(fields[2], QString("0.2"));
            QVERIFY(std::abs(fields[7].toDouble() - table[i - 1].speedup) <= 1e-5 * table[i - 1].speedup);
            QCOMPARE(fields[10].isEmpty(), fields[0] == "1");  // no verdict for the baseline
        }
        // --export-study prints the same table again, as CSV or text.
        const auto exported = run_dp_train({"--export-study", study_path, "--csv"});
        QCOMPARE(exported.exit_code, 0);
        QCOMPARE(exported.out.toUtf8(), file_bytes(csv_path));
        const auto printed = run_dp_train({"--export-study", study_path});
        QCOMPARE(printed.exit_code, 0);
        QVERIFY2(result.out.contains(printed.out), qPrintable(printed.out));
    }

    // --sweep-index I: one grid point (all its repeats), as one task of a
    // Slurm job array runs it; a grid asking for more devices than there
    // are is refused before any run.
    void sweepIndexRunsOnePoint() {
        QTemporaryDir dir;
        const QString study_path = dir.filePath("point.json");
        const auto result = run_dp_train({"--sweep", "devices=1,2", "batch-size=32,64", "--sweep-index",
                                          "3", "--model", "linear", "--dataset", "random",
                                          "--samples", "128", "--epochs", "1", "--no-history",
                                          "--study-out", study_path});
        QCOMPARE(result.exit_code, 0);
        const QStringList runs = result.out.split('\n').filter(QRegularExpression("^== run "));
        QCOMPARE(runs, QStringList{"== run 4 of 4: 2 devices, global batch 64, lr 0.2"});
        const dp::Study study = dp::read_study(study_path.toStdString());
        QCOMPARE(study.runs.size(), std::size_t(1));
        QCOMPARE(study.runs[0].device_count(), 2);
        QCOMPARE(study.runs[0].config.batch_size, 64);

        // The last step of a job array gathers the tasks' studies into one.
        const QString first_path = dir.filePath("first.json"), gathered_path = dir.filePath("all.json");
        QCOMPARE(run_dp_train({"--sweep", "devices=1,2", "batch-size=32,64", "--sweep-index", "2",
                               "--model", "linear", "--dataset", "random", "--samples", "128",
                               "--epochs", "1", "--no-history", "--study-out", first_path})
                     .exit_code,
                 0);
        const auto gathered = run_dp_train({"--gather-study", first_path, study_path, "--study-out", gathered_path});
        QCOMPARE(gathered.exit_code, 0);
        const dp::Study all = dp::read_study(gathered_path.toStdString());
        QCOMPARE(all.runs.size(), std::size_t(2));
        const std::vector<dp::StudyRow> rows = all.table();
        QCOMPARE(rows.size(), std::size_t(2));
        QVERIFY(dp::is_baseline(rows[0]) && rows[1].devices == 2 && rows[1].speedup > 0);
        QVERIFY2(gathered.out.contains(QString::fromStdString(dp::format_study_table(rows))), qPrintable(gathered.out));
        const QString other_path = dir.filePath("other.json");
        QCOMPARE(run_dp_train({"--sweep", "devices=1,2", "--sweep-index", "0", "--model", "linear",
                               "--dataset", "random", "--samples", "128", "--epochs", "1",
                               "--no-history", "--study-out", other_path})
                     .exit_code,
                 0);
        const auto mixed = run_dp_train({"--gather-study", first_path, other_path, "--study-out", gathered_path});
        QCOMPARE(mixed.exit_code, 1);
        QVERIFY2(mixed.err == "dp-train: study 2 of 2 is not of the same sweep (sweep devices=1,2 --repeat 1; "
                              "the first: sweep devices=1,2 batch-size=32,64 --repeat 1): gather one "
                              "sweep's tasks at a time\n",
                 qPrintable(mixed.err));
        QCOMPARE(run_dp_train({"--gather-study", first_path}).exit_code, 2);  // no --study-out

        const auto too_many = run_dp_train({"--sweep", "devices=1,64", "--devices", "cpu:0x2",
                                            "--no-history", "--study-out", study_path});
        QCOMPARE(too_many.exit_code, 2);
        QVERIFY2(too_many.err == "dp-train: --sweep devices=64: only 2 devices here (see "
                                 "--list-devices); list counts up to 2, or name more with --devices\n",
                 qPrintable(too_many.err));
    }

    // A job array's tasks each plan their point in a process of their own, so
    // each task's run has a comparison group of its own: gathered, a (batch
    // size, lr) cell's runs share one group again (the workbench pairs a
    // cell's N-device runs with its baseline by group), and cells stay apart.
    void gatheredStudyGivesEachCellOneComparisonGroup() {
        dp::SweepGrid grid;
        dp::add_sweep_axis(grid, "devices=1,2");
        dp::add_sweep_axis(grid, "batch-size=32,64");
        std::vector<dp::DeviceInfo> devices(2);
        devices[0].id = "cpu:0";
        devices[1].id = "cpu:1";
        std::vector<dp::Study> parts;
        for (std::size_t task = 0; task < 4; ++task) {
            // What one task's process plans: the whole grid, freshly grouped, one point run.
            const dp::StudyPlan plan = dp::sweep_plan(dp::TrainConfig{}, devices, grid, 2, task);
            dp::Study part{dp::StudyKind::sweep, dp::sweep_grid_text(grid), 2, {}};
            for (const dp::PlannedRun& run : plan.runs()) {
                dp::RunRecord record = dp::start_run_record(run.config, "dp-train");
                record.comparison_group = run.comparison_group;
                part.runs.push_back(record);
            }
            parts.push_back(part);
        }
        QVERIFY(parts[0].runs[0].comparison_group != parts[1].runs[0].comparison_group);  // as tasks leave them
        const dp::Study gathered = dp::gather_studies(parts);
        QCOMPARE(gathered.runs.size(), std::size_t(8));
        std::map<int, std::set<std::string>> groups_by_batch;
        for (const dp::RunRecord& run : gathered.runs) {
            QVERIFY(!run.comparison_group.empty());
            groups_by_batch[run.config.batch_size].insert(run.comparison_group);
        }
        QCOMPARE(groups_by_batch.size(), std::size_t(2));
        QCOMPARE(groups_by_batch[32].size(), std::size_t(1));  // 1 and 2 devices, both repeats
        QCOMPARE(groups_by_batch[64].size(), std::size_t(1));
        QVERIFY(*groups_by_batch[32].begin() != *groups_by_batch[64].begin());
        // The cell's first run's group is kept: gathering again changes nothing.
        QCOMPARE(*groups_by_batch[32].begin(), parts[0].runs[0].comparison_group);
        const dp::Study again = dp::gather_studies({gathered});
        for (std::size_t i = 0; i < gathered.runs.size(); ++i)
            QCOMPARE(again.runs[i].comparison_group, gathered.runs[i].comparison_group);
    }

    // The study file's reader refuses what is not a study, in one line.
    void studyReaderRefusesWhatIsNotAStudy_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << "{" << "not a valid study: a syntax error at byte";
        QTest::newRow("no format") << "{}" << "not a valid study: \"format\" is missing";
        QTest::newRow("a run record")
            << "{\"format\": \"dp-workbench run record\", \"version\": 1}"
            << "not a valid study: \"format\" is not \"dp-train study\" (a run record is opened with --import)";
        QTest::newRow("newer version")
            << "{\"format\": \"dp-train study\", \"version\": 2}" << "not a valid study: version 2 is not 1";
        QTest::newRow("unknown kind")
            << "{\"format\": \"dp-train study\", \"version\": 1, \"kind\": \"grid\", \"grid\": \"\", "
               "\"repeats\": 1, \"runs\": []}"
            << "not a valid study: unknown kind \"grid\"";
        QTest::newRow("bad run")
            << "{\"format\": \"dp-train study\", \"version\": 1, \"kind\": \"sweep\", \"grid\": \"\", "
               "\"repeats\": 1, \"runs\": [{}]}"
            << "not a valid study: runs[0]: not a valid run record";
    }
    void studyReaderRefusesWhatIsNotAStudy() {
        QFETCH(QString, json);
        QFETCH(QString, message);
        try {
            dp::study_from_json(json.toStdString());
            QFAIL("accepted a bad study");
        } catch (const dp::Error& error) {
            QVERIFY2(QString(error.what()).startsWith(message), error.what());
        }
    }

    // The table's numbers have a '.' whatever the process's locale (a Qt
    // program sets it from the environment: de_DE writes 0,05).
    void studyTableIsLocaleIndependent() {
        const ProcessLocale german("de_DE.UTF-8");
        if (!german.problem().empty()) QSKIP(german.problem().c_str());
        dp::StudyRow row;
        row.devices = 2;
        row.batch_size = 64;
        row.lr = 0.05f;
        row.repeats = 1;
        row.seconds_per_epoch = row.seconds_min = row.seconds_max = 1.25;
        row.speedup = row.speedup_min = row.speedup_max = 1.5;
        row.baseline_devices = 1;
        row.efficiency = 0.75;
        row.final_test_acc = 0.5;
        QCOMPARE(dp::study_table_csv({row}).substr(dp::study_table_csv({}).size()),
                 std::string("2,64,0.05,1,1.25,1.25,1.25,1.5,1.5,1.5,faster,1,0.75,0.5,false\n"));
        const std::string text = dp::format_study_table({row});
        QVERIFY2(text.find("1.250 (1.250-1.250)") != std::string::npos &&
                     text.find("1.50x (1.50-1.50) faster") != std::string::npos &&
                     text.find("0.05") != std::string::npos,
                 text.c_str());
    }

    // --predict after --compare 1,2: the what-if table per link, the measured
    // runs beside this machine's threads with their error, presets, assumptions.
    void predictTabulatesEveryLinkWithTheMeasuredRuns() {
        const auto result = run_dp_train({"--compare", "1,2", "--limit-train", "256", "--limit-test",
                                          "64", "--batch-size", "64", "--epochs", "1",
                                          "--no-history", "--predict"});
        QCOMPARE(result.exit_code, 0);
        const QString& out = result.out;
        for (const char* link : {"over this machine's threads", "over PCIe 4.0 x16",
                                 "over NVLink 3 (A100)", "over 10 GbE", "over 100 GbE"})
            QVERIFY2(out.contains(link), link);
        const QStringList lines = out.split('\n');
        const auto threads = lines.indexOf(QRegularExpression("^ring all-reduce over this machine's threads: .*"));
        QVERIFY2(threads >= 0, qPrintable(out));
        // Rows 1, 2, 4, ..., 64; 1 and 2 devices were measured: a time and an error each.
        static const QRegularExpression measured(R"(^\s+[12] \|\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+[-+][0-9]+%)");
        QVERIFY2(lines[threads + 2].contains(measured), qPrintable(lines[threads + 2]));
        QVERIFY2(lines[threads + 3].contains(measured), qPrintable(lines[threads + 3]));
        QVERIFY2(lines[threads + 8].startsWith("     64 |"), qPrintable(lines[threads + 8]));
        QVERIFY(out.contains("strong, naive, 10 GbE"));
        QVERIFY(out.contains("strong, dataparallel, 10 GbE"));
        QVERIFY(out.contains("weak, ring, NVLink 3 (A100)"));
        QVERIFY(out.contains("cores shared by CPU devices"));
        QVERIFY(out.contains("assumptions:\n  - "));
    }

    void modelThatCannotTakeTheInputSaysSo() {
        const auto result = run_dp_train({"--model", "lenet", "--dataset", "random", "--epochs", "1"});
        // Refused with the settings (dp::validate), before any data is made.
        QCOMPARE(result.exit_code, 2);
        QVERIFY2(result.err.contains("smaller than the kernel"), qPrintable(result.err));
    }

    void missingDataIsOneLineAndExitOne() {
        const auto result = run_dp_train({"--data-dir", "/nonexistent/fashion", "--epochs", "1"});
        QCOMPARE(result.exit_code, 1);
        QCOMPARE(result.err.count('\n'), 1);
        QVERIFY2(result.err.startsWith("dp-train: /nonexistent/fashion"), qPrintable(result.err));
    }

    // Bad checkpoints fail the run in one line, and the checkpoint a run
    // would have overwritten survives.
    void badCheckpointsFailCleanly() {
        QTemporaryDir dir;
        const QString saved = dir.filePath("mnistnet.safetensors");
        const QString garbage = dir.filePath("garbage.safetensors");
        const QStringList tiny{"--limit-train", "64", "--limit-test", "32", "--batch-size", "32"};
        QCOMPARE(run_dp_train(tiny + QStringList{"--model", "mnistnet", "--epochs", "1", "--save", saved})
                     .exit_code,
                 0);
        QFile saved_file(saved);
        QVERIFY(saved_file.open(QIODevice::ReadOnly));
        const QByteArray saved_bytes = saved_file.readAll();
        QFile garbage_file(garbage);
        QVERIFY(garbage_file.open(QIODevice::WriteOnly));
        garbage_file.write("not a checkpoint at all");
        garbage_file.close();

        const struct {
            QStringList args;
            QString message;
            int exit_code;
        } cases[] = {
            {{"--load", dir.filePath("none.safetensors"), "--save", saved}, "none.safetensors", 1},
            {{"--load", garbage, "--save", saved}, "garbage.safetensors", 1},
            {{"--model", "lenet", "--load", saved, "--save", dir.filePath("other.safetensors")},
             "checkpoint of model 'mnistnet', not 'lenet'", 1},
            // The output-path rule: the checkpoint loaded is never the one saved.
            {{"--load", saved, "--save", saved}, "is the checkpoint --load loads", 2},
        };
        for (const auto& bad : cases) {
            const auto result = run_dp_train(tiny + bad.args + QStringList{"--epochs", "1"});
            QCOMPARE(result.exit_code, bad.exit_code);
            QCOMPARE(result.err.count('\n'), 1);
            QVERIFY2(result.err.contains(bad.message), qPrintable(result.err));
        }
        QVERIFY(saved_file.seek(0));
        QCOMPARE(saved_file.readAll(), saved_bytes);

        // The checkpoint evaluates to what the run that saved it measured.
        const auto evaluated =
            run_dp_train(tiny + QStringList{"--model", "mnistnet", "--load", saved, "--epochs", "0"});
        QCOMPARE(evaluated.exit_code, 0);
        QVERIFY2(evaluated.out.contains("(evaluation only)"), qPrintable(evaluated.out));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
