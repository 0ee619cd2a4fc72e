// dp-train's files under hostile paths, run as a user would: an output is
// never another output, an input, the history or the kernel cache; a name
// too long for its temporary, an overlong path, an unusable $TMPDIR or data
// folder, a pipe or /dev/zero where a file is read, bytes that are not UTF-8
// in a path: each is a one-line error or warning, never a hang, a raw C++
// text or a destroyed file.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <filesystem>
#include <fstream>

#include "dp_train_process.h"

namespace {

namespace fs = std::filesystem;

const QStringList kTinyLinear{"--model", "linear", "--dataset", "random", "--samples", "64",
                              "--batch-size", "16", "--epochs", "1"};
// A LeNet run whose convolutions consult the kernel cache (tuning not fixed).
const QStringList kTinyLenet{"--limit-train", "512", "--limit-test", "256", "--epochs", "1",
                             "--batch-size", "256", "--no-history"};

void write_file(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

void expect_one_line(const ProgramResult& result, const QString& part) {
    QVERIFY2(result.err.endsWith('\n') && result.err.count('\n') == 1, qPrintable(result.err));
    QVERIFY2(result.err.contains(part), qPrintable(result.err + " lacks: " + part));
    QVERIFY2(!result.err.contains("filesystem error") && !result.err.contains("internal error"),
             qPrintable(result.err));
}

ProgramResult run_with(const QStringList& args, const QProcessEnvironment& env) {
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(DP_TRAIN_PATH, args);
    return finish_dp_train(process);
}

// The test environment with the workbench's folder (history, kernel cache)
// at `data_dir` and kernels measured, as a user's runs do.
QProcessEnvironment measuring_environment(const QString& data_dir) {
    QProcessEnvironment env = dp_train_environment({}, data_dir);
    env.insert("DP_KERNEL_TUNING", "cached");
    return env;
}

}  // namespace

class TestRunFiles : public QObject {
    Q_OBJECT

private slots:
    // D2: --record runs.sqlite replaced the history with a JSON record,
    // --save kernel-choices.tsv the cache, --save D/train-images... the data,
    // --save X --record X the checkpoint; however spelled (links, ".."), the
    // output is refused before anything runs, and the file is untouched.
    void anOutputNeverReplacesAFileTheRunKeeps_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("victim");  // relative to the test's folder
        QTest::addColumn<QString>("problem");
        QTest::newRow("history") << QStringList{"--record", "@/wb/runs.sqlite"} << "wb/runs.sqlite"
                                 << "is the run history";
        QTest::newRow("history journal") << QStringList{"--trace", "@/wb/runs.sqlite-journal"}
                                         << "wb/runs.sqlite-journal" << "is the run history";
        QTest::newRow("history through ..")
            << QStringList{"--record", "@/wb/../wb/runs.sqlite"} << "wb/runs.sqlite" << "is the run history";
        QTest::newRow("kernel cache") << QStringList{"--save", "@/wb/kernel-choices.tsv"}
                                      << "wb/kernel-choices.tsv" << "is the kernel cache";
        QTest::newRow("kernel cache by a link") << QStringList{"--save", "@/cache-link"}
                                                << "wb/kernel-choices.tsv" << "is the kernel cache";
        QTest::newRow("data set file")
            << QStringList{"--dataset", "mnist-format", "--data-dir", "@/data", "--model", "lenet",
                           "--save", "@/data/train-images-idx3-ubyte"}
            << "data/train-images-idx3-ubyte" << "is a file of the data set";
        QTest::newRow("checkpoint loaded") << QStringList{"--load", "@/model.st", "--save", "@/model.st"}
                                           << "model.st" << "is the checkpoint --load loads";
        QTest::newRow("save and record") << QStringList{"--save", "@/model.st", "--record", "@/hard-link"}
                                         << "model.st" << "is the same file as --save";
    }
    void anOutputNeverReplacesAFileTheRunKeeps() {
        QFETCH(QStringList, args);
        QFETCH(QString, victim);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath("wb")) && QDir().mkpath(dir.filePath("data")));
        for (const QString& name : {"wb/runs.sqlite", "wb/runs.sqlite-journal", "wb/kernel-choices.tsv",
                                    "data/train-images-idx3-ubyte", "data/train-labels-idx1-ubyte",
                                    "data/t10k-images-idx3-ubyte", "data/t10k-labels-idx1-ubyte",
                                    "model.st"})
            write_file(dir.filePath(name), "precious " + name.toUtf8());
        fs::create_symlink(dir.filePath("wb/kernel-choices.tsv").toStdString(),
                           dir.filePath("cache-link").toStdString());
        fs::create_hard_link(dir.filePath("model.st").toStdString(), dir.filePath("hard-link").toStdString());
        args.replaceInStrings("@", dir.path());
        const auto result = run_with(kTinyLinear + args, dp_train_environment({}, dir.filePath("wb")));
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, problem);
        QVERIFY2(result.err.contains("choose another path") || result.err.contains("its own file"),
                 qPrintable(result.err));
        QCOMPARE(file_bytes(dir.filePath(victim)), "precious " + victim.toUtf8());
    }

    // D10: a 245-255 byte name failed after the first epoch, when its
    // temporary was created; now before the run.
    void aNameWithoutRoomForItsTemporaryIsRefusedFirst() {
        QTemporaryDir dir;
        const QString name = dir.filePath(QString(250, 'n'));
        const auto result = run_dp_train(kTinyLinear + QStringList{"--no-history", "--save", name});
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, "choose a name of at most 233 bytes");
        QVERIFY(!result.out.contains("epoch 1/"));
    }

    // D11: an overlong component or path said "filesystem error: symlink_status".
    void overlongPathsAreOneLineErrors() {
        QTemporaryDir dir;
        const auto component = run_dp_train(
            kTinyLinear + QStringList{"--no-history", "--record", dir.filePath(QString(256, 'c') + "/r.json")});
        QCOMPARE(component.exit_code, 2);
        expect_one_line(component, "over the 255-byte limit of a file name");
        QString deep = dir.path();
        for (int i = 0; i < 25; ++i) deep += "/" + QString(200, 'd');
        const auto whole = run_dp_train(kTinyLinear + QStringList{"--no-history", "--record", deep + "/r.json"});
        QCOMPARE(whole.exit_code, 2);
        expect_one_line(whole, "choose a shorter path");
    }

    // D11: TMPDIR=/nonexistent --compare 1,2 ended in "temp_directory_path".
    void anUnusableTmpdirIsNamed() {
        // A folder surely missing (a machine may have /nonexistent: nobody's home).
        QTemporaryDir dir;
        const QString missing = dir.filePath("missing");
        QProcessEnvironment env = dp_train_environment();
        env.insert("TMPDIR", missing);
        const auto result = run_with(kTinyLinear + QStringList{"--no-history", "--compare", "1,2"}, env);
        QCOMPARE(result.exit_code, 2);
        expect_one_line(result, "TMPDIR (" + missing + ") is not a folder");
        QVERIFY2(result.err.contains("set TMPDIR to a folder you can write, or unset it"), qPrintable(result.err));
        QVERIFY(!result.out.contains("== run"));
    }

    // D11: the kernel cache in an unusable folder printed a filesystem
    // error on stdout; D18: a pipe at kernel-choices.tsv hung dp-train, a
    // link to /dev/zero read without bound. Each run now trains, with one
    // warning on stderr, and the pipe stays a pipe.
    void anUnusableKernelCacheIsAWarning_data() {
        QTest::addColumn<QString>("setup");
        QTest::newRow("folder is a file") << "file";
        QTest::newRow("pipe") << "fifo";
        QTest::newRow("link to /dev/zero") << "zero";
    }
    void anUnusableKernelCacheIsAWarning() {
        QFETCH(QString, setup);
        QTemporaryDir dir;
        QString data_dir = dir.filePath("wb");
        QVERIFY(QDir().mkpath(data_dir));
        const std::string cache = (data_dir + "/kernel-choices.tsv").toStdString();
        if (setup == "file") {
            write_file(dir.filePath("plain"), "x");
            data_dir = dir.filePath("plain/wb");
        } else if (setup == "fifo") {
            QCOMPARE(::mkfifo(cache.c_str(), 0644), 0);
        } else {
            fs::create_symlink("/dev/zero", cache);
        }
        const auto result = run_with(kTinyLenet, measuring_environment(data_dir));
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.out.contains("epoch 1/1") && !result.out.contains("kernel"), qPrintable(result.out));
        QVERIFY2(result.err.startsWith("dp-train: warning: kernel choices not saved") &&
                     result.err.contains("set DP_WORKBENCH_DATA_DIR to a folder you can write") &&
                     !result.err.contains("filesystem error"),
                 qPrintable(result.err));
        if (setup == "fifo") QVERIFY(fs::is_fifo(cache));
    }

    // D18: a pipe or /dev/zero given as a checkpoint to load.
    void aCheckpointThatIsNotAFileIsRefused() {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("model.st");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0644), 0);
        for (const QString& load : {fifo, QString("/dev/zero")}) {
            const auto result = run_dp_train(kTinyLinear + QStringList{"--no-history", "--load", load});
            QVERIFY2(result.exit_code == 1 || result.exit_code == 2, qPrintable(result.err));
            expect_one_line(result, "not a regular file");
        }
    }

    // D15: a path with bytes that are not UTF-8 went raw into the record,
    // which was then not JSON. It is valid JSON now, with U+FFFD for them,
    // and dp-train says so.
    void nonUtf8PathsLeaveAValidRecord() {
        QTemporaryDir dir;
        QProcess process;
        process.setProcessEnvironment(dp_train_environment());
        process.start("/bin/sh", QStringList{"-c",
                                             "exec \"$0\" --model linear --dataset random --samples 64 "
                                             "--batch-size 16 --epochs 1 --no-history --record \"$1/r.json\" "
                                             "--save \"$1/$(printf 'caf\\351')\"",
                                             DP_TRAIN_PATH, dir.path()});
        const auto result = finish_dp_train(process);
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.err.contains("warning: --save holds bytes that are not UTF-8"), qPrintable(result.err));
        QJsonParseError error;
        const QJsonDocument record = QJsonDocument::fromJson(file_bytes(dir.filePath("r.json")), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY(record.object()["config"].toObject()["save_path"].toString().endsWith(QString("caf") + QChar(0xFFFD)));
    }

    // D33: a runs.sqlite linked to a pipe or device made SQLite create
    // "<device>-journal" beside it; it is refused before SQLite opens it.
    void aHistoryThatIsNotAFileIsRefused() {
        QTemporaryDir dir;
        const QString data_dir = dir.filePath("wb");
        QVERIFY(QDir().mkpath(data_dir));
        const std::string fifo = dir.filePath("pipe").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0644), 0);
        fs::create_symlink(fifo, (data_dir + "/runs.sqlite").toStdString());
        const auto result = run_with(kTinyLinear, dp_train_environment({}, data_dir));
        QCOMPARE(result.exit_code, 0);
        QVERIFY2(result.err.contains("is a named pipe, not a database file") &&
                     result.err.contains("set DP_WORKBENCH_DATA_DIR to another folder"),
                 qPrintable(result.err));
        QVERIFY(!fs::exists(fifo + "-journal"));
    }

    // 44.6: a data folder that cannot hold a history (/dev/null, or
    // XDG_DATA_HOME naming a file) stopped --no-history runs with exit 2,
    // blaming runs.sqlite ("give another path"), when an output was asked
    // for: the check that no output replaces the history looked at the
    // history's path and failed. The outputs' own paths are fine: the run
    // trains and writes them. With the history on, the run still trains and
    // says in one line why the history did not keep it, and the fix.
    void historyProblemsNeverBlockARun_data() {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");  // "@": a regular file in the test's folder
        QTest::addColumn<QString>("output");
        QTest::newRow("/dev/null, --save") << "DP_WORKBENCH_DATA_DIR" << "/dev/null" << "--save";
        QTest::newRow("/dev/null, --record") << "DP_WORKBENCH_DATA_DIR" << "/dev/null" << "--record";
        QTest::newRow("/dev/null, --trace") << "DP_WORKBENCH_DATA_DIR" << "/dev/null" << "--trace";
        QTest::newRow("XDG_DATA_HOME a file, --save") << "XDG_DATA_HOME" << "@" << "--save";
    }
    void historyProblemsNeverBlockARun() {
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, output);
        QTemporaryDir dir;
        QProcessEnvironment env = dp_train_environment();
        env.remove("DP_WORKBENCH_DATA_DIR");
        if (value == "@") {
            value = dir.filePath("a-file");
            write_file(value, "x");
        }
        env.insert(variable, value);
        const QString written = dir.filePath("out");
        const auto without = run_with(kTinyLinear + QStringList{"--no-history", output, written}, env);
        QCOMPARE(without.exit_code, 0);
        QVERIFY2(without.err.isEmpty(), qPrintable(without.err));
        QVERIFY(QFileInfo(written).size() > 0);

        QFile::remove(written);
        const auto with = run_with(kTinyLinear + QStringList{output, written}, env);
        QCOMPARE(with.exit_code, 0);
        QVERIFY(QFileInfo(written).size() > 0);
        expect_one_line(with, "the history did not keep the run");
        QVERIFY2(with.err.contains("runs.sqlite") && with.err.contains("--no-history"), qPrintable(with.err));
    }
};

QTEST_GUILESS_MAIN(TestRunFiles)
#include "test_run_files.moc"
