// dp-train --distributed under mpirun, 2 and 3 ranks on this machine's CPU:
// the MPI communicator against a direct sum; a multi-process run ends with
// the parameters of the in-process run on as many devices; and failures
// (missing data on one rank, different settings, a killed rank) end every
// rank quickly with a non-zero exit and the failed rank's message.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>

#include "data/dataset.h"
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
    // end with the parameters of N devices in one process.
    void trainingMatchesInProcess_data() { rankCounts(); }
    void trainingMatchesInProcess() {
        QFETCH(int, ranks);
        QTemporaryDir dir;
        const QString start = dir.filePath("start.safetensors");
        QCOMPARE(run(DP_TRAIN_PATH, small_lenet + QStringList{"--limit-train", "128", "--epochs",
                                                              "1", "--save", start})
                     .exit_code,
                 0);
        const QStringList twenty_steps = small_lenet + QStringList{"--limit-train", "1280", "--epochs",
                                                                   "1", "--no-shuffle", "--load", start};
        QStringList devices;
        for (int d = 0; d < ranks; ++d) devices << "cpu:" + QString::number(d);
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("DP_CPU_DEVICES", QString::number(ranks));
        const QString in_process = dir.filePath("in_process.safetensors");
        const auto one = run(DP_TRAIN_PATH,
                             twenty_steps + QStringList{"--devices", devices.join(','), "--save", in_process},
                             env);
        QVERIFY2(one.exit_code == 0, qPrintable(one.err));

        const QString distributed = dir.filePath("distributed.safetensors");
        const auto many = mpirun(ranks, QStringList{DP_TRAIN_PATH, "--distributed"} + twenty_steps +
                                            QStringList{"--save", distributed});
        QVERIFY2(many.exit_code == 0, qPrintable(many.err));
        QVERIFY2(many.out.count("epoch 1/1") == 1, qPrintable(many.out));  // rank 0 alone prints
        QVERIFY2(many.err.isEmpty(), qPrintable(many.err));
        const double difference =
            max_relative_difference(in_process.toStdString(), distributed.toStdString());
        qInfo("%d ranks vs %d devices in one process: max relative parameter difference %.2e",
              ranks, ranks, difference);
        QVERIFY(difference <= 1e-5);
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
        QVERIFY(result.seconds < 30);
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

    // kill -9 of rank 1 while it trains: mpirun ends rank 0 too.
    void killedRankEndsTheJob() {
        QTemporaryDir dir;
        QProcess job;
        job.start(MPIEXEC_PATH,
                  mpirun_args(2, per_rank("echo $$ > \"$1/pid$OMPI_COMM_WORLD_RANK\"; exec \"$0\" "
                                          "--distributed --epochs 100 --limit-train 2560 "
                                          "--limit-test 100",
                                          dir.path())));
        QFile pid_file(dir.filePath("pid1"));
        QElapsedTimer timer;
        timer.start();
        while (!pid_file.exists() && timer.elapsed() < 30000) job.waitForFinished(100);
        job.waitForFinished(3000);  // into training
        QVERIFY(pid_file.open(QIODevice::ReadOnly));
        const auto rank1 = pid_file.readAll().trimmed().toInt();
        QVERIFY(rank1 > 0);
        QCOMPARE(::kill(rank1, SIGKILL), 0);
        timer.restart();
        const auto result = finish(job, 60000);
        qInfo("the job ended %.1f s after rank 1 was killed, exit code %d",
              double(timer.elapsed()) / 1000, result.exit_code);
        QVERIFY(result.exit_code > 0);
        QVERIFY(timer.elapsed() < 30000);
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
