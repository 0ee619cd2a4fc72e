// The CUDA module (engine/module/cuda_module.h): the one line that says why
// CUDA is not there, and dp-train on a machine where the module cannot be
// loaded: CPU devices listed with that line, a cuda: device refused with it,
// a CPU run that trains. Runs on every machine, GPU or not.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli/dp_train_process.h"
#include "module/cuda_module.h"

namespace {

// dp-train with the CUDA module looked for where there is none, as on a
// machine whose package lacks it.
ProgramResult run_without_cuda_module(const QStringList& args, const QString& history_dir) {
    QProcess process;
    QProcessEnvironment env = dp_train_environment({}, history_dir);
    env.insert("DP_CUDA_MODULE", "/nonexistent/libdp-cuda.so");
    process.setProcessEnvironment(env);
    process.start(DP_TRAIN_PATH, args);
    return finish_dp_train(process);
}

QStringList lines_starting(const QString& text, const QString& start) {
    QStringList found;
    for (const QString& line : text.split('\n'))
        if (line.startsWith(start)) found << line;
    return found;
}

}  // namespace

class TestCudaModule : public QObject {
    Q_OBJECT

private slots:
    void aMissingLibraryIsNamedWithWhatToInstall() {
        QCOMPARE(dp::cuda_load_problem("libcudnn.so.9: cannot open shared object file: No such "
                                       "file or directory"),
                 std::string("libcudnn.so.9 not found (install cuDNN 9 or set LD_LIBRARY_PATH)"));
        QCOMPARE(dp::cuda_load_problem("libnccl.so.2: cannot open shared object file: No such "
                                       "file or directory"),
                 std::string("libnccl.so.2 not found (install NCCL 2 or set LD_LIBRARY_PATH)"));
        QCOMPARE(dp::cuda_load_problem("libcublasLt.so.13: cannot open shared object file: No "
                                       "such file or directory"),
                 std::string("libcublasLt.so.13 not found (install the CUDA 13 libraries or set "
                             "LD_LIBRARY_PATH)"));
        QCOMPARE(dp::cuda_load_problem("/opt/x/libdp-cuda.so: cannot open shared object file: No "
                                       "such file or directory"),
                 std::string("/opt/x/libdp-cuda.so not found (reinstall dp-workbench, or set "
                             "DP_CUDA_MODULE to the module's path)"));
        // Anything else the loader says is passed on as it is.
        const std::string symbol = "/x/libdp-cuda.so: undefined symbol: _ZN2dp14kernel_choicesEv";
        QCOMPARE(dp::cuda_load_problem(symbol), symbol);
    }

    // CTest points DP_CUDA_MODULE at the build's module (tests/CMakeLists.txt):
    // it loads into a program that links the engine, its engine symbols
    // resolved from the program.
    void theBuildsModuleLoads() {
#ifdef DP_HAVE_CUDA
        QVERIFY2(dp::cuda_module() != nullptr, dp::cuda_module_problem().c_str());
        QVERIFY(dp::cuda_module_problem().empty());
        QVERIFY(dp::cuda_module()->build_versions().starts_with("CUDA "));
#else
        QVERIFY(dp::cuda_module() == nullptr);
        QVERIFY(dp::cuda_module_problem().starts_with("CUDA: not available: this build has no CUDA"));
#endif
    }

    void listDevicesSaysWhyCudaIsMissingInOneLine() {
        QTemporaryDir history;
        const ProgramResult result = run_without_cuda_module({"--list-devices"}, history.path());
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.startsWith("cpu:0 "), qPrintable(result.out));
        const QStringList cuda = lines_starting(result.out, "CUDA: ");
        QCOMPARE(cuda.size(), 1);
#ifdef DP_HAVE_CUDA
        QCOMPARE(cuda.front(), QString("CUDA: not available: /nonexistent/libdp-cuda.so not found "
                                       "(reinstall dp-workbench, or set DP_CUDA_MODULE to the "
                                       "module's path)"));
#endif
        QVERIFY2(!result.out.contains("cuda:0"), qPrintable(result.out));
        QVERIFY2(result.err.isEmpty(), qPrintable(result.err));
    }

    void aCudaDeviceIsRefusedWithThatLine() {
        QTemporaryDir history;
        const ProgramResult result = run_without_cuda_module(
            {"--devices", "cuda:0", "--model", "lenet", "--epochs", "1", "--limit-train", "64"},
            history.path());
        QVERIFY2(result.exit_code > 0, qPrintable(result.err));  // exited, with an error: no crash
        QCOMPARE(result.err.count('\n'), 1);
        QVERIFY2(result.err.contains("no device cuda:0 on this machine: CUDA: not available: "),
                 qPrintable(result.err));
    }

    void aCpuRunTrains() {
        QTemporaryDir history;
        const ProgramResult result = run_without_cuda_module(
            {"--model", "lenet", "--epochs", "1", "--limit-train", "512", "--limit-test", "256",
             "--devices", "cpu:0", "--no-history"},
            history.path());
        QVERIFY2(result.exit_code == 0, qPrintable(result.err));
        QVERIFY2(result.out.contains("epoch 1/1"), qPrintable(result.out));
    }
};

QTEST_GUILESS_MAIN(TestCudaModule)
#include "test_cuda_module.moc"
