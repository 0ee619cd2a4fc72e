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
                                         << QString() << "--lr needs a positive number, got 'abc'";
        QTest::newRow("negative lr") << QStringList{QStringLiteral("--lr=-1")} << QString()
                                     << "--lr needs a positive number, got '-1'";
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
};

QTEST_GUILESS_MAIN(TestWorkbenchProgram)
#include "test_workbench_program.moc"
