// dp-workbench as a program: its command line and environment are checked
// before a window opens, with one line on stderr and exit code 2 for a usage
// error, as dp-train does; nothing bad is remembered for the next launch.
#include <QtTest>

#include <QHash>
#include <QProcess>
#include <QTemporaryDir>

#include <signal.h>
#include <sys/stat.h>

#include "record/run_record_json.h"
#include "study/study_file.h"
#include "run_history.h"

namespace {

struct ProgramResult {
    int exitCode = -1;
    QString err;
    QString out;
};

ProgramResult runWorkbench(const QStringList& args, const QTemporaryDir& config,
                           const QString& cpuDevices = {}, bool withoutDisplay = false,
                           const QHash<QString, QString>& moreEnvironment = {})
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (withoutDisplay)
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QString::fromLatin1(name));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());  // QSettings' folder
    // Without it Qt warns on stderr, which holds the one line checked here.
    const QTemporaryDir runtime;
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtime.path());
    if (!cpuDevices.isEmpty())
        env.insert(QStringLiteral("DP_CPU_DEVICES"), cpuDevices);
    for (auto variable = moreEnvironment.cbegin(); variable != moreEnvironment.cend(); ++variable)
        env.insert(variable.key(), variable.value());
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(DP_WORKBENCH_PATH), args);
    process.waitForFinished(60000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromLocal8Bit(process.readAllStandardError()),
            QString::fromLocal8Bit(process.readAllStandardOutput())};
}

// `settings`, then --start and a screenshot once every run has ended.
QStringList startedWith(QStringList settings, const QString& screenshot)
{
    return settings << QStringLiteral("--start") << QStringLiteral("--screenshot") << screenshot
                    << QStringLiteral("--screenshot-after-epochs") << QStringLiteral("0");
}

// The runs in the history at `path`, none while it cannot be read (not yet
// made, or locked by the workbench's write).
std::vector<dp::RunRecord> runsIn(const QString& path)
{
    if (!QFileInfo::exists(path))
        return {};
    try {
        return RunHistory(path).runs();
    } catch (const dp::Error&) {
        return {};
    }
}

} // namespace

class TestWorkbenchProgram : public QObject
{
    Q_OBJECT

private slots:
    // On a machine with no windowing system Qt aborted with a core dump,
    // even for --help.
    void withoutADisplayHelpWorksAndTheWindowSaysWhy()
    {
        const QTemporaryDir config;
        const ProgramResult help = runWorkbench({QStringLiteral("--help")}, config, {}, true);
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.contains(QStringLiteral("--model")), qPrintable(help.out + help.err));
        // Issue 41: what the sbatch script and the README tell a cluster user to run.
        QVERIFY2(help.out.contains(QStringLiteral("--import <FILE>")), qPrintable(help.out));
        QVERIFY2(help.out.contains(QStringLiteral("--screenshot <PATH>")), qPrintable(help.out));
        const ProgramResult window = runWorkbench({}, config, {}, true);
        QCOMPARE(window.exitCode, 1);
        QCOMPARE(window.err.count('\n'), 1);
        QVERIFY2(window.err.startsWith(QStringLiteral("dp-workbench: no display")), qPrintable(window.err));
        QVERIFY(window.err.contains(QStringLiteral("xvfb-run")));
    }

    // A window system that is named but cannot start (an X display with no
    // server, a platform plugin that does not exist) was Qt's four lines and
    // an abort with a core dump: now one line naming Qt's reason, exit 1.
    void aWindowSystemThatCannotStartIsOneLineNotAnAbort_data()
    {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no X server at DISPLAY") << "DISPLAY" << ":9731" << "xcb";
        QTest::newRow("no such platform plugin") << "QT_QPA_PLATFORM" << "no-such-platform" << "no-such-platform";
        QTest::newRow("Wayland display that is not there")
                << "WAYLAND_DISPLAY" << "no-such-wayland-display" << "wayland";
    }
    void aWindowSystemThatCannotStartIsOneLineNotAnAbort()
    {
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, reason);
        const QTemporaryDir config, data;
        const ProgramResult result = runWorkbench(
                {}, config, {}, true,
                {{variable, value}, {QStringLiteral("DP_WORKBENCH_DATA_DIR"), data.path()}});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.count('\n') == 1, qPrintable(result.err));
        QVERIFY2(result.err.startsWith(QStringLiteral("dp-workbench: no window system could be started (")),
                 qPrintable(result.err));
        QVERIFY2(result.err.contains(reason), qPrintable(result.err));
        QVERIFY(result.err.contains(QStringLiteral("QT_QPA_PLATFORM")));
    }

    // 43.5: --help-all opened the window (without a display it never
    // ended), reading and writing the settings and the history; --version was
    // an unknown option. Both print and exit 0, touching neither.
    void helpAndVersionPrintAndTouchNothing_data()
    {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("printed");
        QTest::newRow("--help-all") << "--help-all" << "--platform";  // one of Qt's own options
        QTest::newRow("--help") << "--help" << "--model";
        QTest::newRow("--version") << "--version" << "DP Workbench ";
    }
    void helpAndVersionPrintAndTouchNothing()
    {
        QFETCH(QString, option);
        QFETCH(QString, printed);
        const QTemporaryDir config, data, shots;
        // The screenshot ends a window that opens, so that a failure is quick.
        const ProgramResult result = runWorkbench(
                {option, QStringLiteral("--screenshot"), shots.filePath(QStringLiteral("w.png"))}, config, {},
                false, {{QStringLiteral("DP_WORKBENCH_DATA_DIR"), data.path()}});
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.contains(printed), qPrintable(result.out + result.err));
        QVERIFY(QDir(config.path()).isEmpty());
        QVERIFY(QDir(data.path()).isEmpty());
        QVERIFY(QDir(shots.path()).isEmpty());
    }

    // 44.4: SIGTERM, SIGINT or SIGHUP killed a training workbench at once,
    // its run left "running" in the history. As dp-train, it stops the run
    // after the batch in flight, records it stopped, removes its temporary
    // files and exits as the signal reports (128 + it); a second signal (a
    // relayed duplicate, Ctrl-C pressed twice) changes nothing.
    void signalsStopTheRunAndQuit_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("times");
        QTest::addColumn<int>("ignoredAtStart");  // sent first, to no effect; 0: none
        QTest::newRow("SIGTERM") << int(SIGTERM) << 1 << 0;
        QTest::newRow("SIGHUP") << int(SIGHUP) << 1 << 0;
        QTest::newRow("Ctrl-C twice") << int(SIGINT) << 2 << 0;
        // `nohup dp-workbench` outlives the terminal: the run goes on until the SIGTERM.
        QTest::newRow("SIGHUP ignored at start") << int(SIGTERM) << 1 << int(SIGHUP);
    }
    void signalsStopTheRunAndQuit()
    {
        QFETCH(int, signal);
        QFETCH(int, times);
        QFETCH(int, ignoredAtStart);
        const QTemporaryDir config, data, runtime, temporary;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtime.path());
        env.insert(QStringLiteral("DP_WORKBENCH_DATA_DIR"), data.path());
        env.insert(QStringLiteral("TMPDIR"), temporary.path());  // the run's trace folder goes here
        QProcess process;
        process.setProcessEnvironment(env);
        // A test started in the background inherits SIGINT ignored; the workbench rightly keeps it so.
        process.setChildProcessModifier([ignoredAtStart] {
            ::signal(SIGINT, SIG_DFL);
            if (ignoredAtStart)
                ::signal(ignoredAtStart, SIG_IGN);
        });
        // Minutes of epochs: the run is mid-way when the signal comes.
        process.start(QStringLiteral(DP_WORKBENCH_PATH),
                      {QStringLiteral("--model"), QStringLiteral("linear"), QStringLiteral("--dataset"),
                       QStringLiteral("random"), QStringLiteral("--samples"), QStringLiteral("20000"),
                       QStringLiteral("--batch-size"), QStringLiteral("8"), QStringLiteral("--epochs"),
                       QStringLiteral("1000"), QStringLiteral("--devices"), QStringLiteral("cpu:0"),
                       QStringLiteral("--start")});
        const QString history = data.filePath(QStringLiteral("runs.sqlite"));
        QTRY_VERIFY_WITH_TIMEOUT(!runsIn(history).empty() && !runsIn(history).front().epochs.empty(), 60000);
        if (ignoredAtStart)
            ::kill(pid_t(process.processId()), ignoredAtStart);
        for (int i = 0; i < times; ++i)
            ::kill(pid_t(process.processId()), signal);
        QVERIFY(process.waitForFinished(60000));
        const QString err = QString::fromLocal8Bit(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + signal);
        QVERIFY2(err.contains(QStringLiteral("stopping after the batch in flight")), qPrintable(err));
        const std::vector<dp::RunRecord> runs = runsIn(history);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs.front().status, dp::RunStatus::stopped);
        QVERIFY(!runs.front().epochs.empty());
        QVERIFY2(QDir(temporary.path()).isEmpty(),
                 qPrintable(QDir(temporary.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).join(' ')));
    }

    void usageErrorsExitTwoInOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("cpuDevices");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--bogus")} << QString()
                                        << "Unknown option 'bogus'";
        QTest::newRow("lr not a number") << QStringList{QStringLiteral("--lr"), QStringLiteral("abc")}
                                         << QString() << "--lr: 'abc' is not a valid number";
        QTest::newRow("negative lr") << QStringList{QStringLiteral("--lr=-1")} << QString()
                                     << "--lr must be a positive number (got -1)";
        // D12: accepted and remembered (no model, no devices at every later
        // launch), or shown clamped to the panel's 65536.
        QTest::newRow("unknown model") << QStringList{QStringLiteral("--model"), QStringLiteral("bogus")}
                                       << QString() << "unknown model 'bogus' (known: ";
        QTest::newRow("unknown device") << QStringList{QStringLiteral("--devices"), QStringLiteral("cpu:99")}
                                        << QString() << "cpu:99";
        QTest::newRow("batch above the panel's")
            << QStringList{QStringLiteral("--batch-size"), QStringLiteral("2147483647")} << QString()
            << "--batch-size must be 0 to 65536 in the workbench (got 2147483647)";
        QTest::newRow("batch past int") << QStringList{QStringLiteral("--batch-size"), QStringLiteral("2147483648")}
                                        << QString() << "--batch-size: '2147483648' is not a valid number (out of range)";
        QTest::newRow("zero epochs") << QStringList{QStringLiteral("--epochs"), QStringLiteral("0")}
                                     << QString() << "--epochs must be 1 to 1000 in the workbench (got 0)";
        // Every remembered setting of the schema is an option, a new one included.
        QTest::newRow("negative weight decay")
            << QStringList{QStringLiteral("--weight-decay=-0.1")} << QString()
            << "--weight-decay must be 0 or more (got -0.1)";
        QTest::newRow("negative limit") << QStringList{QStringLiteral("--limit-train"), QStringLiteral("-1")}
                                        << QString() << "--limit-train must be 0 or more (got -1)";
        // Aborted with an uncaught dp::Error (exit 134) before.
        QTest::newRow("DP_CPU_DEVICES abc") << QStringList() << "abc"
                                            << "DP_CPU_DEVICES must be a device count";
        QTest::newRow("DP_CPU_DEVICES 0") << QStringList() << "0"
                                          << "DP_CPU_DEVICES must be a device count";
    }
    void usageErrorsExitTwoInOneLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, cpuDevices);
        QFETCH(QString, message);
        QTemporaryDir config;
        const ProgramResult result = runWorkbench(args, config, cpuDevices);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.startsWith(QStringLiteral("dp-workbench: ")) && result.err.count('\n') == 1,
                 qPrintable(result.err));
        QVERIFY2(result.err.contains(message), qPrintable(result.err));
        // Nothing was remembered: --lr abc was saved as the next launch's lr.
        QVERIFY(QDir(config.path()).isEmpty());
    }

    // A failed --import said only "cannot import FILE"; it says why, in one
    // line, exit 2. A FIFO waited forever for a writer, a link to /dev/zero
    // read until memory ran out: neither is read at all.
    void importFailuresSayWhy_data()
    {
        QTest::addColumn<QByteArray>("contents");  // empty: made by `special`
        QTest::addColumn<QString>("special");
        QTest::addColumn<QString>("reason");
        dp::RunRecord record;
        record.id = "r";
        record.started_at = "2026-01-01T00:00:00Z";
        record.source = "dp-train";
        record.status = dp::RunStatus::finished;
        record.config.epochs = 1;
        record.config.devices = {"cpu:0"};
        record.epochs = {{1, 1.0, 0.5, 0.5, 1.0}};
        const QByteArray good = QByteArray::fromStdString(dp::to_json(record));
        QString utf16 = QString::fromUtf8(good);
        QTest::newRow("UTF-16")
                << QByteArray("\xff\xfe")
                           + QByteArray(reinterpret_cast<const char*>(utf16.utf16()), utf16.size() * 2)
                << QString() << "UTF-16 text, not UTF-8";
        QTest::newRow("version 2") << QByteArray(good).replace("\"version\": 1", "\"version\": 2")
                                   << QString() << "unsupported run record version 2";
        QTest::newRow("lr a string") << QByteArray(good).replace("\"lr\": 0.2", "\"lr\": \"0.2\"")
                                     << QString() << "\"config.lr\" is not a number";
        QTest::newRow("missing field") << QByteArray(good).replace("\"seed\": 0,", "")
                                       << QString() << "\"config.seed\" is missing";
        QTest::newRow("unknown model") << QByteArray(good).replace("\"lenet\"", "\"bogus\"")
                                       << QString() << "unknown model 'bogus'";
        QTest::newRow("FIFO") << QByteArray() << "fifo" << "not a regular file";
        QTest::newRow("link to /dev/zero") << QByteArray() << "/dev/zero" << "not a regular file";
        QTest::newRow("the record itself imports") << good << QString() << QString();
    }
    void importFailuresSayWhy()
    {
        QFETCH(QByteArray, contents);
        QFETCH(QString, special);
        QFETCH(QString, reason);
        const QTemporaryDir config, data;
        const QString file = data.filePath(QStringLiteral("record.json"));
        if (special == QLatin1String("fifo")) {
            QCOMPARE(::mkfifo(QFile::encodeName(file).constData(), 0600), 0);
        } else if (!special.isEmpty()) {
            QVERIFY(QFile::link(special, file));
        } else {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(contents);
        }
        const ProgramResult result = runWorkbench(
                {QStringLiteral("--import"), file, QStringLiteral("--screenshot"),
                 data.filePath(QStringLiteral("shot.png"))},
                config, {}, false, {{QStringLiteral("DP_WORKBENCH_DATA_DIR"), data.path()}});
        if (reason.isEmpty()) {
            QCOMPARE(result.exitCode, 0);
            return;
        }
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.startsWith(QStringLiteral("dp-workbench: cannot import: ") + file + ": ")
                         && result.err.count('\n') == 1,
                 qPrintable(result.err));
        QVERIFY2(result.err.contains(reason), qPrintable(result.err));
    }

    // --import of a study file (dp-train --sweep's) opens it, and the
    // screenshot is of it; a study that cannot be read says why in one
    // line, exit 2, as a run record does.
    void importOpensAStudy()
    {
        const QTemporaryDir config, data;
        std::vector<dp::RunRecord> runs;
        for (const int devices : {1, 2}) {
            dp::RunRecord record;
            record.id = "r" + std::to_string(devices);
            record.started_at = "2026-01-01T00:00:00Z";
            record.source = "dp-train";
            record.status = dp::RunStatus::finished;
            record.config.epochs = 2;
            record.config.devices = devices == 1 ? std::vector<std::string>{"cpu:0"}
                                                 : std::vector<std::string>{"cpu:0", "cpu:1"};
            record.epochs = {{1, 1.0, 0.5, 0.5, 2.0}, {2, 0.8, 0.6, 0.6, devices == 1 ? 1.0 : 0.6}};
            runs.push_back(record);
        }
        const QString study = data.filePath(QStringLiteral("study.json"));
        dp::write_study(study.toStdString(), {dp::StudyKind::sweep, "devices=1,2", 1, runs});
        const QString shot = data.filePath(QStringLiteral("shot.png"));
        const QHash<QString, QString> dataDir{{QStringLiteral("DP_WORKBENCH_DATA_DIR"), data.path()}};
        const ProgramResult opened =
                runWorkbench({QStringLiteral("--import"), study, QStringLiteral("--screenshot"), shot},
                             config, {}, false, dataDir);
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
        QFile picture(shot);
        QVERIFY(picture.open(QIODevice::ReadOnly) && picture.read(4) == QByteArray("\x89PNG"));

        QFile broken(study);
        QVERIFY(broken.open(QIODevice::ReadWrite));
        const QByteArray text = broken.readAll().replace("\"epochs\": [", "\"epochs\": 3, \"x\": [");
        broken.resize(0);
        broken.write(text);
        broken.close();
        const ProgramResult refused =
                runWorkbench({QStringLiteral("--import"), study, QStringLiteral("--screenshot"), shot},
                             config, {}, false, dataDir);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.startsWith(QStringLiteral("dp-workbench: cannot open the study: ") + study
                                        + ": not a valid study: runs[0]: ")
                         && refused.err.count('\n') == 1,
                 qPrintable(refused.err));
    }

    // --start --screenshot with settings that cannot run never exited (no
    // run started, none ever ended); a run that failed exited 0.
    void startThatCannotRunOrFailsExitsNonZero()
    {
        const QTemporaryDir config, data;
        const QString shot = data.filePath(QStringLiteral("shot.png"));
        const QHash<QString, QString> history{{QStringLiteral("DP_WORKBENCH_DATA_DIR"), data.path()}};
        const ProgramResult unrunnable = runWorkbench(
                startedWith({QStringLiteral("--devices"), QStringLiteral("cpu:0,cpu:1"),
                             QStringLiteral("--batch-size"), QStringLiteral("1")},
                            shot),
                config, QStringLiteral("2"), false, history);
        QCOMPARE(unrunnable.exitCode, 2);
        QVERIFY2(unrunnable.err.startsWith(QStringLiteral("dp-workbench: ")) && unrunnable.err.count('\n') == 1,
                 qPrintable(unrunnable.err));
        QVERIFY2(unrunnable.err.contains(QStringLiteral("batch size")), qPrintable(unrunnable.err));

        // The four files are there by name (the settings check looks no
        // further), but empty: the run fails as it loads them.
        const QTemporaryDir emptyData;
        for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
            QFile file(emptyData.filePath(QLatin1String(name)));
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        QHash<QString, QString> emptyFolder = history;
        emptyFolder.insert(QStringLiteral("DP_DATA_DIR"), emptyData.path());
        const QTemporaryDir freshConfig;
        const ProgramResult failed = runWorkbench(
                startedWith({QStringLiteral("--devices"), QStringLiteral("cpu:0"), QStringLiteral("--epochs"),
                             QStringLiteral("1")},
                            shot),
                freshConfig, QStringLiteral("1"), false, emptyFolder);
        QCOMPARE(failed.exitCode, 1);
        // One line of ours (Qt's offscreen platform may warn besides).
        const QStringList ours = failed.err.split('\n').filter(QRegularExpression(QStringLiteral("^dp-workbench: ")));
        QCOMPARE(ours.size(), 1);
        QVERIFY2(ours.front().startsWith(QStringLiteral("dp-workbench: the run failed: ")), qPrintable(failed.err));
        QVERIFY2(ours.front().contains(emptyData.path()), qPrintable(failed.err));
        QVERIFY(QFile::exists(shot));  // the window as the run ended, to show why
    }

    // D11: a remembered 1e-320 stopped the workbench from starting at all
    // (std::stod's out_of_range); settings that no longer validate are
    // dropped with a warning and the window opens.
    void rememberedSettingsThatNoLongerHoldAreDropped()
    {
        QTemporaryDir config;
        const QString folder = config.filePath(QStringLiteral("DP Workbench"));
        QVERIFY(QDir().mkpath(folder));
        QFile settings(folder + QStringLiteral("/DP Workbench.conf"));
        QVERIFY(settings.open(QIODevice::WriteOnly));
        settings.write("[run]\nwarmup_epochs=1e-320\nmodel=bogus\n");
        settings.close();
        const ProgramResult result =
            runWorkbench({QStringLiteral("--screenshot"), config.filePath(QStringLiteral("w.png"))}, config);
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.err.contains(QStringLiteral("the remembered warm-up epochs '1e-320' is dropped")),
                 qPrintable(result.err));
        QVERIFY2(result.err.contains(QStringLiteral("the remembered model 'bogus' is dropped: unknown model")),
                 qPrintable(result.err));
    }
};

QTEST_GUILESS_MAIN(TestWorkbenchProgram)
#include "test_workbench_program.moc"
