// dp-train --distributed under mpirun, 2 and 3 ranks on this machine's CPU:
// the MPI communicator against a direct sum; a multi-process run ends with
// the parameters of the in-process run on as many devices; and failures
// (missing data on one rank, different settings, a killed rank) end every
// rank with a non-zero exit and the failed rank's message, or the killed
// rank's death in the record; a stopped rank ends the job after the
// collective timeout, named. The tests wait for events (a pid file, the
// first epoch line, the job's end), never for a time: a loaded machine only
// makes them slower.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <sys/types.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <vector>

#include "core/error.h"
#include "data/dataset.h"
#include "record/run_record_json.h"
#include "io/safetensors.h"
#include "train/parameter_drift.h"

namespace {

// What CTest's SKIP_RETURN_CODE reports as skipped.
constexpr int skip_exit_code = 77;

struct ProgramResult {
    int exit_code = -1;  // -1: crashed or timed out
    QString out, err;
    double seconds = 0;
};

ProgramResult finish(QProcess& process, int timeout_ms) {
    QElapsedTimer timer;
    timer.start();
    if (!process.waitForFinished(timeout_ms)) process.kill(), process.waitForFinished();
    const bool normal = process.exitStatus() == QProcess::NormalExit;
    return {normal ? process.exitCode() : -1, process.readAllStandardOutput(),
            process.readAllStandardError(), double(timer.elapsed()) / 1000};
}

QStringList mpirun_args(int ranks, const QStringList& command) {
    return QStringList{"--allow-run-as-root", "--oversubscribe", "-np", QString::number(ranks)} +
           command;
}

ProgramResult run(const QString& program, const QStringList& args,
                  const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                  int timeout_ms = 120000) {
    QProcess process;
    process.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    process.start(program, args);
    auto result = finish(process, timeout_ms);
    result.seconds = double(timer.elapsed()) / 1000;
    return result;
}

ProgramResult mpirun(int ranks, const QStringList& command, int timeout_ms = 120000) {
    return run(MPIEXEC_PATH, mpirun_args(ranks, command), QProcessEnvironment::systemEnvironment(),
               timeout_ms);
}

// A shell command line for each rank: $OMPI_COMM_WORLD_RANK in `script`
// gives each rank its own arguments; "$0" is dp-train, "$1" `dir`.
QStringList per_rank(const QString& script, const QString& dir) {
    return {"/bin/sh", "-c", script, DP_TRAIN_PATH, dir};
}

// Every tensor of two checkpoints: the largest |a - b| / max(|a|, |b|, 1e-3)
// (dp::max_relative_difference).
double max_relative_difference(const std::filesystem::path& a_file,
                               const std::filesystem::path& b_file) {
    const auto a = dp::read_safetensors(a_file), b = dp::read_safetensors(b_file);
    double worst = 0;
    for (const auto& tensor : a.tensors) {
        if (tensor.dtype != dp::TensorDtype::f32) continue;
        const auto* other = b.find(tensor.name);
        if (!other || other->element_count() != tensor.element_count()) return INFINITY;
        std::vector<float> x(tensor.element_count()), y(x.size());
        dp::copy_elements(tensor, x);
        dp::copy_elements(*other, y);
        worst = std::max(worst, dp::max_relative_difference(x, y));
    }
    return worst;
}

const QStringList small_lenet{"--model", "lenet", "--batch-size", "64", "--limit-test", "100"};

// Starts `job`: mpirun with `ranks` ranks of `dp-train --distributed
// <arguments>`, each of which first writes its pid to "pid<rank>" in `dir`,
// so that a test can signal one rank.
void start_ranks_writing_pids(QProcess& job, int ranks, const QString& dir,
                              const QString& arguments) {
    job.start(MPIEXEC_PATH,
              mpirun_args(ranks, per_rank("echo $$ > \"$1/pid$OMPI_COMM_WORLD_RANK\"; exec \"$0\" "
                                          "--distributed " + arguments,
                                          dir)));
}

// The pid that `rank` of a job started by start_ranks_writing_pids wrote,
// waiting up to 30 s for it; 0 if it never did.
qint64 rank_pid(QProcess& job, const QString& dir, int rank) {
    QFile pid_file(dir + "/pid" + QString::number(rank));
    QElapsedTimer timer;
    timer.start();
    while (!pid_file.exists() && timer.elapsed() < 30000) job.waitForFinished(100);
    if (!pid_file.open(QIODevice::ReadOnly)) return 0;
    return pid_file.readAll().trimmed().toLongLong();
}

// Waits up to a minute for rank 0's first epoch line; false (with what the
// job printed) if the job ended or took longer.
bool wait_for_first_epoch(QProcess& job) {
    QString out;
    QElapsedTimer timer;
    timer.start();
    while (!out.contains("epoch 1/") && job.state() != QProcess::NotRunning && timer.elapsed() < 60000) {
        job.waitForReadyRead(100);
        out += job.readAllStandardOutput();
    }
    if (!out.contains("epoch 1/")) qWarning("%s", qPrintable(out + job.readAllStandardError()));
    return out.contains("epoch 1/");
}

// Whether `pid` is still a live dp-train process (not a zombie, and not a
// pid the system has reused), so that cleaning up never signals another.
bool is_live_dp_train(qint64 pid) {
    QFile cmdline("/proc/" + QString::number(pid) + "/cmdline"),
        stat("/proc/" + QString::number(pid) + "/stat");
    if (!cmdline.open(QIODevice::ReadOnly) || !stat.open(QIODevice::ReadOnly)) return false;
    const QByteArray state = stat.readAll();
    const auto after_name = state.lastIndexOf(')');
    return cmdline.readAll().contains("dp-train") && after_name >= 0 &&
           state.mid(after_name + 2, 1) != "Z";
}

// Ends every rank in `pids` still alive when it goes (stopped ones too), so
// that whatever a test does, no rank is left behind.
struct KillRanksAtExit {
    const std::vector<qint64>& pids;
    ~KillRanksAtExit() {
        for (const qint64 pid : pids) {
            if (pid <= 0 || !is_live_dp_train(pid)) continue;
            ::kill(pid_t(pid), SIGCONT);
            ::kill(pid_t(pid), SIGKILL);
        }
    }
};

// Starts `job`: 2 ranks of a long LeNet run recording to `record`, with
// `extra` arguments; fills `pids` with the ranks' pids and returns once
// rank 0 has printed its first epoch (false if it never does).
bool start_two_recorded_ranks(QProcess& job, const QString& dir, const QString& record,
                              const QString& extra, std::vector<qint64>& pids) {
    start_ranks_writing_pids(job, 2, dir,
                             "--epochs 100 --limit-train 1280 --limit-test 100 --no-history " +
                                 extra + " --record " + record);
    pids = {rank_pid(job, dir, 0), rank_pid(job, dir, 1)};
    return pids[0] > 0 && pids[1] > 0 && wait_for_first_epoch(job);
}

// The run record (JSON) at `path`, empty if unreadable.
QJsonObject record_json(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object() : QJsonObject();
}

}  // namespace

class TestMpi : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
    }

    void allReduceMatchesDirectSum_data() { rankCounts(); }
    void allReduceMatchesDirectSum() {
        QFETCH(int, ranks);
        const auto result = mpirun(ranks, {ALLREDUCE_CHECK_PATH});
        QVERIFY2(result.exit_code == 0, qPrintable(result.err));
        QCOMPARE(result.out.count("all-reduce and broadcast ok"), ranks);
    }

    // LeNet, 20 steps of batch 64 in file order from one checkpoint: N ranks
    // end with the parameters of N devices in one process, bit for bit, with
    // either strategy (issue 41: 3 ranks with ring differed from 3 threads;
    // MPI_Allreduce summed in an order of its own).
    void trainingMatchesInProcess_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("allreduce");
        QTest::newRow("2 ranks, ring") << 2 << "ring";
        QTest::newRow("3 ranks, ring") << 3 << "ring";
        QTest::newRow("3 ranks, naive") << 3 << "naive";
    }
    void trainingMatchesInProcess() {
        QFETCH(int, ranks);
        QFETCH(QString, allreduce);
        QTemporaryDir dir;
        const QString start = dir.filePath("start.safetensors");
        QCOMPARE(run(DP_TRAIN_PATH, small_lenet + QStringList{"--limit-train", "128", "--epochs",
                                                              "1", "--save", start})
                     .exit_code,
                 0);
        const QStringList twenty_steps =
            small_lenet + QStringList{"--limit-train", "1280", "--epochs", "1", "--no-shuffle",
                                      "--allreduce", allreduce, "--load", start};
        QStringList devices;
        for (int d = 0; d < ranks; ++d) devices << "cpu:" + QString::number(d);
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("DP_CPU_DEVICES", QString::number(ranks));
        const QString in_process = dir.filePath("in_process.safetensors");
        const auto one = run(DP_TRAIN_PATH,
                             twenty_steps + QStringList{"--devices", devices.join(','), "--save", in_process,
                                                        "--record", dir.filePath("in_process.json")},
                             env);
        QVERIFY2(one.exit_code == 0, qPrintable(one.err));

        const QString distributed = dir.filePath("distributed.safetensors");
        const auto many = mpirun(ranks, QStringList{DP_TRAIN_PATH, "--distributed"} + twenty_steps +
                                            QStringList{"--save", distributed, "--record",
                                                        dir.filePath("distributed.json")});
        QVERIFY2(many.exit_code == 0, qPrintable(many.err));
        QVERIFY2(many.out.count("epoch 1/1") == 1, qPrintable(many.out));  // rank 0 alone prints
        QVERIFY2(many.err.isEmpty(), qPrintable(many.err));
        const double difference =
            max_relative_difference(in_process.toStdString(), distributed.toStdString());
        qInfo("%d ranks vs %d devices in one process (%s): max relative parameter difference %.2e",
              ranks, ranks, qPrintable(allreduce), difference);
        QFile a(in_process), b(distributed);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QVERIFY2(a.readAll() == b.readAll(), "the checkpoints differ (cmp)");
        // The accuracies count the same samples; the losses are summed per
        // process before they are summed over processes (README, "Many
        // machines"), so only to float rounding.
        const QJsonObject many_record = record_json(dir.filePath("distributed.json"));
        // The launcher (srun's runs say "srun": scripts/slurm-test) and every rank.
        QCOMPARE(many_record["source"].toString(), QStringLiteral("mpirun"));
        QCOMPARE(many_record["processes"].toInt(), ranks);
        QCOMPARE(many_record["config"]["allreduce"].toString(), allreduce);
        const QJsonObject one_epoch = record_json(dir.filePath("in_process.json"))["epochs"][0].toObject(),
                          many_epoch = many_record["epochs"][0].toObject();
        for (const char* accuracy : {"train_acc", "test_acc"})
            QVERIFY2(one_epoch.contains(accuracy) && one_epoch[accuracy] == many_epoch[accuracy], accuracy);
        for (const char* loss : {"train_loss", "test_loss"}) {
            const double a = one_epoch[loss].toDouble(), b = many_epoch[loss].toDouble();
            QVERIFY2(a > 0 && std::abs(a - b) <= 1e-6 * a,
                     qPrintable(QStringLiteral("%1: %2 vs %3").arg(loss).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)));
        }
    }

    // Rank 1's data folder does not exist: the job ends quickly, non-zero,
    // with rank 1's message.
    void missingDataOnOneRankFailsFast() {
        QTemporaryDir dir;
        QVERIFY(QFile::link(QString::fromStdString(dp::default_fashion_mnist_dir().string()),
                            dir.filePath("rank0")));
        const auto result = mpirun(
            2,
            per_rank("exec \"$0\" --distributed --data-dir \"$1/rank$OMPI_COMM_WORLD_RANK\" "
                     "--epochs 50 --limit-train 2560 --limit-test 100",
                     dir.path()),
            60000);
        qInfo("the job ended %.1f s after mpirun started, exit code %d", result.seconds,
              result.exit_code);
        QVERIFY(result.exit_code > 0);
        QVERIFY2(result.err.contains("dp-train: rank 1: " + dir.filePath("rank1")),
                 qPrintable(result.err));
        // Fast: rank 1's failure ended the job, not rank 0's collective
        // timeout, before any epoch (told by what was printed, not by the
        // clock, which a loaded machine slows).
        QVERIFY2(!result.err.contains("did not reach"), qPrintable(result.err));
        QVERIFY2(!result.out.contains("epoch 1/"), qPrintable(result.out));
    }

    void differentSettingsStopEveryRank() {
        const auto result = mpirun(
            2, per_rank("exec \"$0\" --distributed --seed \"$OMPI_COMM_WORLD_RANK\" --epochs 50",
                        {}),
            60000);
        QVERIFY(result.exit_code > 0);
        QVERIFY2(result.err.contains("dp-train: rank 1: settings differ from rank 0's: seed (1 here, "
                                     "0 on rank 0)"),
                 qPrintable(result.err));
        QVERIFY(!result.out.contains("epoch"));
    }

    // Issue 41: a command line dp-train cannot read was printed once per
    // rank, none named. One line for the job: rank 0's when every rank has
    // it, else the rank's own, named, and the job ends either way.
    void unreadableCommandLineIsOneLine_data() {
        QTest::addColumn<QString>("epochs");
        QTest::addColumn<QString>("named");
        QTest::newRow("every rank") << "abc" << "dp-train: --epochs";
        QTest::newRow("rank 1 alone") << "$([ $OMPI_COMM_WORLD_RANK = 1 ] && echo abc || echo 50)"
                                      << "dp-train: rank 1: --epochs";
    }
    void unreadableCommandLineIsOneLine() {
        QFETCH(QString, epochs);
        QFETCH(QString, named);
        const auto result = mpirun(
            2, per_rank("exec \"$0\" --distributed --limit-train 256 --epochs " + epochs, {}), 60000);
        QVERIFY(result.exit_code > 0);
        QVERIFY2(result.err.count("dp-train:") == 1, qPrintable(result.err));
        QVERIFY2(result.err.contains(named), qPrintable(result.err));
        QVERIFY2(!result.out.contains("epoch 1/"), qPrintable(result.out));
    }

    // Ranks given other data: the same sizes (training on mixed data in
    // silence) or other sizes (mismatched collectives corrupted the heap).
    // Every rank stops before training with one line naming rank 1 and what
    // differs. Rank 1's "training set" is the test set's files.
    void differentDataStopEveryRank_data() {
        QTest::addColumn<QString>("limits");
        QTest::addColumn<QString>("difference");
        QTest::newRow("same sizes") << "--limit-train 256 --limit-test 100"
                                    << "checksum of the first 256 samples ";
        QTest::newRow("other sizes") << "--limit-train 12000 --limit-test 100"
                                     << "training samples 10000 (12000 on rank 0)";
    }
    void differentDataStopEveryRank() {
        QFETCH(QString, limits);
        QFETCH(QString, difference);
        QTemporaryDir dir;
        const QString data = QString::fromStdString(dp::default_fashion_mnist_dir().string());
        QVERIFY(QFile::link(data, dir.filePath("rank0")));
        QVERIFY(QDir(dir.path()).mkdir("rank1"));
        const auto present = [&](const QString& name) {
            return QFile::exists(data + "/" + name + ".gz") ? name + ".gz" : name;
        };
        for (const auto& [as, from] : {std::pair{"train-images-idx3-ubyte", "t10k-images-idx3-ubyte"},
                                       std::pair{"train-labels-idx1-ubyte", "t10k-labels-idx1-ubyte"},
                                       std::pair{"t10k-images-idx3-ubyte", "t10k-images-idx3-ubyte"},
                                       std::pair{"t10k-labels-idx1-ubyte", "t10k-labels-idx1-ubyte"}}) {
            const QString source = present(from);
            const QString suffix = source.endsWith(".gz") ? ".gz" : "";
            QVERIFY(QFile::link(data + "/" + source, dir.filePath("rank1/" + QString(as) + suffix)));
        }
        const auto result = mpirun(
            2,
            per_rank("exec \"$0\" --distributed --data-dir \"$1/rank$OMPI_COMM_WORLD_RANK\" "
                     "--epochs 50 " + limits,
                     dir.path()),
            60000);
        QVERIFY(result.exit_code > 0);
        QVERIFY2(result.err.contains("the ranks loaded different data (rank 1 unlike rank 0): rank 1 has "),
                 qPrintable(result.err));
        QVERIFY2(result.err.contains(difference), qPrintable(result.err));
        QVERIFY2(result.err.contains("the same files at the same --data-dir"), qPrintable(result.err));
        QVERIFY2(!result.out.contains("epoch 1/"), qPrintable(result.out));
        QVERIFY2(!result.err.contains("munmap") && !result.err.contains("signal"), qPrintable(result.err));
    }

    // kill -9 of one rank while it trains: mpirun ends the other too. Issue
    // 43 item 6: the run stayed "running" and the survivor printed that it
    // would record a stop. The lowest rank alive records the run as failed,
    // naming the dead rank, and says so; no rank claims a stop.
    void killedRankEndsTheJob_data() {
        QTest::addColumn<int>("killed");
        QTest::newRow("rank 1 killed") << 1;
        QTest::newRow("rank 0 killed") << 0;
    }
    void killedRankEndsTheJob() {
        QFETCH(int, killed);
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        QProcess job;
        std::vector<qint64> pids;
        const KillRanksAtExit cleanup{pids};
        QVERIFY(start_two_recorded_ranks(job, dir.path(), record, "", pids));
        const qint64 killed_pid = pids[std::size_t(killed)];
        QCOMPARE(::kill(pid_t(killed_pid), SIGKILL), 0);
        QElapsedTimer timer;
        timer.start();
        const auto result = finish(job, 60000);
        qInfo("the job ended %.1f s after rank %d was killed, exit code %d",
              double(timer.elapsed()) / 1000, killed, result.exit_code);
        QVERIFY(result.exit_code > 0);
        const QString death = QStringLiteral("rank %1 died (process %2 on ").arg(killed).arg(killed_pid);
        const QJsonObject json = record_json(record);
        QVERIFY2(json["status"].toString() == "failed", qPrintable(json["status"].toString() + result.err));
        QVERIFY2(json["error"].toString().startsWith(death), qPrintable(json["error"].toString()));
        QVERIFY(json["epochs"].toArray().size() >= 1);
        // The workbench imports it (issue 41: "unknown all-reduce strategy 'mpi'").
        QCOMPARE(json["config"].toObject()["allreduce"].toString(), QStringLiteral("ring"));
        try {
            dp::read_run_record(record.toStdString());
        } catch (const dp::Error& error) {
            QFAIL(error.what());
        }
        const int survivor = 1 - killed;
        QVERIFY2(result.err.contains(QStringLiteral("dp-train: rank %1: ").arg(survivor) + death),
                 qPrintable(result.err));
        QVERIFY2(result.err.contains("; the run is recorded as failed\n"), qPrintable(result.err));
        QVERIFY2(!result.err.contains("stopping after") && !result.err.contains("recorded as stopped"),
                 qPrintable(result.err));
    }

    // SIGSTOP of one rank after the first epoch: the others wait for it in a
    // collective for --collective-timeout (5 s), then the job ends non-zero
    // with one line naming the stopped rank, whichever rank reports it
    // (rank 0 itself may be the one stopped).
    void stoppedRankEndsTheJobNamingIt_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("stopped");
        QTest::newRow("2 ranks, rank 1 stopped") << 2 << 1;
        QTest::newRow("3 ranks, rank 0 stopped") << 3 << 0;
    }
    void stoppedRankEndsTheJobNamingIt() {
        QFETCH(int, ranks);
        QFETCH(int, stopped);
        QTemporaryDir dir;
        QProcess job;
        start_ranks_writing_pids(job, ranks, dir.path(),
                                 "--epochs 100 --limit-train 2560 --limit-test 100 "
                                 "--collective-timeout 5");
        std::vector<qint64> pids;
        for (int rank = 0; rank < ranks; ++rank) pids.push_back(rank_pid(job, dir.path(), rank));
        // Whatever happens below, no rank is left behind, stopped or running.
        const KillRanksAtExit cleanup{pids};
        QVERIFY(std::all_of(pids.begin(), pids.end(), [](qint64 pid) { return pid > 0; }));

        QVERIFY(wait_for_first_epoch(job));
        QCOMPARE(::kill(pid_t(pids[std::size_t(stopped)]), SIGSTOP), 0);
        QElapsedTimer timer;
        timer.start();
        const auto result = finish(job, 60000);
        // No bound on the seconds (issue 43 item 9: this failed on a loaded
        // machine): the others may have waited for the stopped rank before
        // the signal landed, and a loaded machine is slow. The line below
        // names the 5 s wait; finish()'s limit is the job's.
        qInfo("the job ended %.1f s after rank %d was stopped, exit code %d",
              double(timer.elapsed()) / 1000, stopped, result.exit_code);
        QVERIFY(result.exit_code > 0);
        const QRegularExpression named(
            "dp-train: rank \\d: rank " + QString::number(stopped) +
            " \\([^,]+, cpu:\\d+\\) did not reach the (all-reduce|broadcast) [^:]* within 5 s: it "
            "may be paused, swapping or stuck; raise --collective-timeout if its steps are that "
            "slow\n");
        QVERIFY2(result.err.contains(named), qPrintable(result.err));
        QCOMPARE(result.err.count("did not reach"), 1);  // one line for the job
    }

    // D6: Ctrl-C or SIGTERM to mpirun (which relays it to every rank), or
    // to one rank, killed the ranks and left the record "running". The
    // ranks now stop at the same step and rank 0 records the run as stopped.
    void signalledJobRecordsItsEnd_data() {
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("target");  // -1: mpirun; else the rank
        QTest::newRow("SIGTERM to mpirun") << int(SIGTERM) << -1;
        QTest::newRow("Ctrl-C to mpirun") << int(SIGINT) << -1;
        QTest::newRow("SIGTERM to rank 0") << int(SIGTERM) << 0;
        QTest::newRow("SIGTERM to rank 1") << int(SIGTERM) << 1;
    }
    void signalledJobRecordsItsEnd() {
        QFETCH(int, signal);
        QFETCH(int, target);
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        QProcess job;
        std::vector<qint64> pids;
        const KillRanksAtExit cleanup{pids};
        QVERIFY(start_two_recorded_ranks(job, dir.path(), record, "", pids));
        const qint64 signalled = target < 0 ? job.processId() : pids[std::size_t(target)];
        QCOMPARE(::kill(pid_t(signalled), signal), 0);
        const auto result = finish(job, 60000);
        QVERIFY(result.exit_code != 0);
        const QJsonObject json = record_json(record);
        QVERIFY2(json["status"].toString() == "stopped", qPrintable(json["status"].toString() + result.err));
        QVERIFY(json["epochs"].toArray().size() >= 1);
        QVERIFY2(result.err.contains("dp-train: stopped by "), qPrintable(result.err));
    }

    // D37: a SIGSTOPped rank 0 was named by rank 1, but the job's abort
    // killed it before it could write, and the record stayed "running".
    // The rank that fails writes the end itself.
    void stoppedRankZeroLeavesTheRunFailed() {
        QTemporaryDir dir;
        const QString record = dir.filePath("run.json");
        QProcess job;
        std::vector<qint64> pids;
        const KillRanksAtExit cleanup{pids};
        QVERIFY(start_two_recorded_ranks(job, dir.path(), record, "--collective-timeout 5", pids));
        QCOMPARE(::kill(pid_t(pids[0]), SIGSTOP), 0);
        const auto result = finish(job, 60000);
        QVERIFY(result.exit_code > 0);
        const QJsonObject json = record_json(record);
        QVERIFY2(json["status"].toString() == "failed", qPrintable(json["status"].toString() + result.err));
        QVERIFY2(json["error"].toString().contains("rank 0 ("), qPrintable(json["error"].toString()));
        QVERIFY(json["epochs"].toArray().size() >= 1);
    }

private:
    void rankCounts() {
        QTest::addColumn<int>("ranks");
        QTest::newRow("2 ranks") << 2;
        QTest::newRow("3 ranks") << 3;
    }
};

int main(int argc, char** argv) {
    if (!QFileInfo(MPIEXEC_PATH).isExecutable()) {
        std::printf("SKIP: mpirun not found (%s): install openmpi-bin\n", MPIEXEC_PATH);
        return skip_exit_code;
    }
    TestMpi test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_mpi.moc"
