// bench-ui-stall: how long the workbench's GUI thread goes without serving
// its event loop while the engine trains (ResNet-18 on a subset by default).
// A 5 ms QTimer ticks on the GUI thread; each gap between ticks beyond the
// interval is a stall: time a click or repaint would have waited. Prints one
// JSON object; the goal is max_stall_ms < 50. Beside the stalls it prints the
// run's own s/epoch (the median of its steady epochs, from the history): the
// GUI's responsiveness must not be bought with training time, so both numbers
// stand side by side; --busy adds one busy process (a spin loop at the same
// nice level) for the loaded machine a user's desktop is.
//
//   bench-ui-stall [--model resnet18] [--limit-train 2048] [--limit-test 512]
//                  [--batch-size 256] [--epochs 2] [--interval-ms 5] [--busy]
//
// Runs on the offscreen platform unless QT_QPA_PLATFORM says otherwise, with
// settings and run history in a temporary folder.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#include "gui_bench.h"
#include "main_window.h"
#include "run_history.h"

namespace {

double percentile(std::vector<double> values, double fraction)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto index = std::size_t(fraction * double(values.size() - 1) + 0.5);
    return values[std::min(index, values.size() - 1)];
}

double threadCpuMs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) * 1e-6;
}

// A child process that spins until killed: another program's busy core.
pid_t startSpinner()
{
    const pid_t pid = fork();
    if (pid == 0)
        for (unsigned long spin = 0;; ++spin)
            asm volatile("" : "+r"(spin));  // a loop the compiler keeps
    return pid;
}

// The run's steady-epoch median and range, as the runs table quotes it
// (dp::epoch_time); the bench trains one run.
QJsonObject secondsPerEpoch(const QString& historyPath)
{
    const std::vector<dp::RunRecord> runs = RunHistory(historyPath).runs();
    if (runs.empty() || runs.back().epochs.empty())
        return {};
    const dp::EpochTime time = dp::epoch_time(runs.back().epochs);
    return {{QStringLiteral("median"), time.median},
            {QStringLiteral("min"), time.min},
            {QStringLiteral("max"), time.max},
            {QStringLiteral("steady_epochs"), time.steady_epochs}};
}

}  // namespace

int main(int argc, char* argv[])
{
    useOffscreenUnlessAsked();
    QApplication app(argc, argv);
    nameBench("bench-ui-stall");

    QCommandLineParser parser;
    parser.addHelpOption();
    const auto option = [&](const char* name, const char* fallback) {
        QCommandLineOption result(QString::fromLatin1(name), QString(), QStringLiteral("V"),
                                  QString::fromLatin1(fallback));
        parser.addOption(result);
        return result;
    };
    const QCommandLineOption modelOption = option("model", "resnet18");
    const QCommandLineOption limitTrainOption = option("limit-train", "2048");
    const QCommandLineOption limitTestOption = option("limit-test", "512");
    const QCommandLineOption batchOption = option("batch-size", "256");
    const QCommandLineOption epochsOption = option("epochs", "2");
    const QCommandLineOption intervalOption = option("interval-ms", "5");
    const QCommandLineOption busyOption(QStringLiteral("busy"), QStringLiteral("Beside one busy process."));
    parser.addOption(busyOption);
    parser.process(app);
    const pid_t spinner = parser.isSet(busyOption) ? startSpinner() : 0;

    QTemporaryDir scratch;
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch.filePath("settings"));
    qputenv("DP_WORKBENCH_DATA_DIR", scratch.filePath(QStringLiteral("data")).toUtf8());

    dp::TrainConfig config;
    config.model = parser.value(modelOption).toStdString();
    config.limit_train = parser.value(limitTrainOption).toInt();
    config.limit_test = parser.value(limitTestOption).toInt();
    config.batch_size = parser.value(batchOption).toInt();
    config.epochs = parser.value(epochsOption).toInt();
    config.lr = 0.1f;
    const int intervalMs = parser.value(intervalOption).toInt();

    QElapsedTimer runClock;
    MainWindow window;
    window.setRunConfig(config);
    window.show();

    std::vector<double> stallsMs;
    // The longest stalls and when the epochs landed, to tell which work caused them.
    // busyMs: CPU time the GUI thread itself used in the gap. Near ms, the
    // window's own work stalled it; near 0, it waited for a core (other
    // threads or processes had both).
    struct Stall {
        double atSeconds, ms, busyMs;
    };
    double threadCpuAtTick = threadCpuMs();
    std::vector<Stall> longStalls;
    QJsonArray epochTimes;
    QElapsedTimer sinceTick;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const double gapMs = double(sinceTick.nsecsElapsed()) * 1e-6;
        sinceTick.start();
        const double cpuMs = threadCpuMs();
        stallsMs.push_back(std::max(0.0, gapMs - intervalMs));
        if (stallsMs.back() > 20)
            longStalls.push_back({double(runClock.nsecsElapsed()) * 1e-9 - gapMs * 1e-3,
                                  stallsMs.back(), cpuMs - threadCpuAtTick});
        threadCpuAtTick = cpuMs;
    });

    int epochs = 0;
    QString outcome;
    QObject::connect(&window, &MainWindow::epochPlotted, [&](int) {
        ++epochs;
        epochTimes.append(double(runClock.elapsed()) / 1000.0);
    });
    QObject::connect(&window, &MainWindow::runEnded, [&] {
        ticker.stop();
        outcome = window.findChild<QObject*>(QStringLiteral("statusLabel"))->property("text").toString();
        QCoreApplication::quit();
    });
    // Measure from the first tick after the window is up and the run starts.
    QTimer::singleShot(0, [&] {
        runClock.start();
        sinceTick.start();
        ticker.start(intervalMs);
        window.startRun();
    });
    app.exec();
    if (spinner > 0) {
        kill(spinner, SIGKILL);
        waitpid(spinner, nullptr, 0);
    }

    const double maxStall = stallsMs.empty() ? 0 : *std::max_element(stallsMs.begin(), stallsMs.end());
    const long over50 = std::count_if(stallsMs.begin(), stallsMs.end(), [](double s) { return s > 50; });
    std::sort(longStalls.begin(), longStalls.end(),
              [](const Stall& a, const Stall& b) { return a.ms > b.ms; });
    QJsonArray worst;
    for (std::size_t i = 0; i < std::min<std::size_t>(longStalls.size(), 10); ++i)
        worst.append(QJsonObject{{QStringLiteral("at_s"), longStalls[i].atSeconds},
                                 {QStringLiteral("ms"), longStalls[i].ms},
                                 {QStringLiteral("gui_thread_busy_ms"), longStalls[i].busyMs}});
    const QJsonObject result{
        {QStringLiteral("model"), parser.value(modelOption)},
        {QStringLiteral("limit_train"), config.limit_train},
        {QStringLiteral("limit_test"), config.limit_test},
        {QStringLiteral("batch_size"), config.batch_size},
        {QStringLiteral("epochs"), epochs},
        {QStringLiteral("platform"), QApplication::platformName()},
        {QStringLiteral("interval_ms"), intervalMs},
        {QStringLiteral("ticks"), qint64(stallsMs.size())},
        {QStringLiteral("run_seconds"), double(runClock.elapsed()) / 1000.0},
        {QStringLiteral("max_stall_ms"), maxStall},
        {QStringLiteral("p99_stall_ms"), percentile(stallsMs, 0.99)},
        {QStringLiteral("p50_stall_ms"), percentile(stallsMs, 0.50)},
        {QStringLiteral("stalls_over_50ms"), qint64(over50)},
        {QStringLiteral("goal_max_stall_ms"), 50},
        {QStringLiteral("worst_stalls_over_20ms"), worst},
        {QStringLiteral("epoch_plotted_at_s"), epochTimes},
        {QStringLiteral("busy_process_beside"), spinner > 0},
        {QStringLiteral("seconds_per_epoch"), secondsPerEpoch(RunHistory::defaultPath())},
        {QStringLiteral("load_average_1min_at_end"), loadAverage()},
        {QStringLiteral("outcome"), outcome},
    };
    std::printf("%s", QJsonDocument(result).toJson(QJsonDocument::Indented).constData());
    return maxStall < 50 ? 0 : 1;
}
