// dp-workbench as a program: its command line and environment are checked
// before a window opens, with one line on stderr and exit code 2 for a usage
// error, as dp-train does; nothing bad is remembered for the next launch.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

namespace {

struct ProgramResult {
    int exitCode = -1;
    QString err;
    QString out;
};

ProgramResult runWorkbench(const QStringList& args, const QTemporaryDir& config,
                           const QString& cpuDevices = {}, bool withoutDisplay = false)
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
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(DP_WORKBENCH_PATH), args);
    process.waitForFinished(60000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromLocal8Bit(process.readAllStandardError()),
            QString::fromLocal8Bit(process.readAllStandardOutput())};
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
        const ProgramResult window = runWorkbench({}, config, {}, true);
        QCOMPARE(window.exitCode, 1);
        QCOMPARE(window.err.count('\n'), 1);
        QVERIFY2(window.err.startsWith(QStringLiteral("dp-workbench: no display")), qPrintable(window.err));
        QVERIFY(window.err.contains(QStringLiteral("xvfb-run")));
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
