// bench-runs-scale: the workbench with thousands of runs in its history. For
// each history size it writes that many finished runs into runs.sqlite of a
// scratch data folder, then times, in this process (the offscreen platform
// unless QT_QPA_PLATFORM says otherwise):
//   start_to_shown_s   MainWindow made (history loaded, charts built) until
//                      the shown window has handled its pending events
//   filter_keystroke_s one key typed into "Filter runs" ('l', matching all rows)
//   filter_cleared_s   the filter emptied again
//   sort_by_run_s      a click's worth of sorting by the Run column
//   delete_all_s       every row selected in the sorted table, then
//                      "Delete from history" (confirmed)
// and then, as a user's command line does, `dp-workbench --import F1 ...
// --import FN --screenshot PNG` in a child process on an empty history,
// against the same command without imports. Prints one JSON object.
//
//   bench-runs-scale [--sizes 1000,5000,20000] [--imports 1000]
//                    [--workbench PATH]   (default: ../app/dp-workbench beside this program)
//
// Settings, history and imports live in a temporary folder, never the user's.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QWindow>

#include <sys/resource.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "gui_bench.h"
#include "main_window.h"
#include "record/run_record_json.h"
#include "run_history.h"
#include "runs_table_model.h"

namespace {


QString cpuModel()
{
    QFile file(QStringLiteral("/proc/cpuinfo"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray& line : file.readAll().split('\n'))
        if (line.startsWith("model name"))
            return QString::fromUtf8(line.mid(line.indexOf(':') + 1).trimmed());
    return {};
}

// Run `index` of a history that looks like a class's: LeNet and ResNet-18 on
// 1 or 2 CPU devices at a few batches and rates, 50 seeds of each (so most
// labels need their seed to read apart), one run in ten in a comparison
// repeated three times (1, 2, 1, 2, 1, 2 devices), three epochs each.
dp::RunRecord benchRun(int index)
{
    dp::TrainConfig config;
    config.model = index % 7 == 0 ? "resnet18" : "lenet";
    config.devices = index % 2 ? std::vector<std::string>{"cpu:0", "cpu:1"}
                               : std::vector<std::string>{"cpu:0"};
    config.batch_size = 64 << (index / 2 % 3);
    config.lr = index / 6 % 2 ? 0.2f : 0.1f;
    config.seed = std::uint64_t(index / 12 % 50);
    config.epochs = 3;
    dp::RunRecord record = dp::start_run_record(config, "dp-train");
    char id[32];
    std::snprintf(id, sizeof id, "bench-%07d", index);
    record.id = id;
    char started[32];
    std::snprintf(started, sizeof started, "2026-%02d-%02dT%02d:%02d:%02dZ", 1 + index / 40000 % 12,
                  1 + index / 1440 % 28, index / 60 % 24, index % 60, index % 60);
    record.started_at = started;
    record.status = dp::RunStatus::finished;
    if (index % 60 < 6)
        record.comparison_group = "bench-compare-" + std::to_string(index / 60);
    for (int epoch = 1; epoch <= 3; ++epoch)
        record.epochs.push_back({epoch, 1.0 / epoch, 0.6 + 0.1 * epoch, 0.55 + 0.1 * epoch,
                                 2.0 + 0.01 * (index % 13)});
    return record;
}

std::vector<dp::RunRecord> benchRuns(int count, int first = 0)
{
    std::vector<dp::RunRecord> runs;
    for (int i = 0; i < count; ++i)
        runs.push_back(benchRun(first + i));
    return runs;
}

// User and system CPU time of the children waited for so far.
double childrenCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    const auto seconds = [](const timeval& time) { return double(time.tv_sec) + double(time.tv_usec) * 1e-6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double processCpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

// Runs `action`, then the events it posted (repaints, layouts): what the
// user waits for, as `name`_s; and the CPU time this process spent on it as
// `name`_cpu_s, which other processes on a shared machine stretch less.
template <typename Action>
void timed(QJsonObject& result, const QString& name, Action&& action)
{
    const double cpuBefore = processCpuSeconds();
    QElapsedTimer clock;
    clock.start();
    action();
    QCoreApplication::processEvents();
    result[name + QStringLiteral("_s")] = double(clock.nsecsElapsed()) * 1e-9;
    result[name + QStringLiteral("_cpu_s")] = processCpuSeconds() - cpuBefore;
}

void typeKey(QWidget* widget, Qt::Key key, const QString& text)
{
    QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier, text);
    QKeyEvent release(QEvent::KeyRelease, key, Qt::NoModifier, text);
    QApplication::sendEvent(widget, &press);
    QApplication::sendEvent(widget, &release);
}

QJsonObject measureHistory(int runs, const QString& dataFolder)
{
    qputenv("DP_WORKBENCH_DATA_DIR", dataFolder.toUtf8());
    QElapsedTimer clock;
    clock.start();
    RunHistory(RunHistory::defaultPath()).save(benchRuns(runs));
    const double written = double(clock.nsecsElapsed()) * 1e-9;

    QJsonObject result{{QStringLiteral("runs"), runs}, {QStringLiteral("history_write_s"), written}};
    std::unique_ptr<MainWindow> window;
    timed(result, QStringLiteral("start_to_shown"), [&] {
        window = std::make_unique<MainWindow>();
        window->show();
        while (!window->windowHandle() || !window->windowHandle()->isExposed())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    });
    auto* filter = window->findChild<QLineEdit*>(QStringLiteral("runsFilter"));
    auto* table = window->findChild<QTableView*>(QStringLiteral("runsTable"));
    auto* deleteButton = window->findChild<QPushButton*>(QStringLiteral("deleteRunsButton"));
    auto* model = window->findChild<RunsTableModel*>();
    result[QStringLiteral("rows_loaded")] = model->rowCount();
    // 'l' keeps almost every row (LeNet, "lr"), found in its first cell; a
    // 'q' after it keeps none, so every cell of every row is read.
    timed(result, QStringLiteral("filter_keystroke"), [&] { typeKey(filter, Qt::Key_L, QStringLiteral("l")); });
    result[QStringLiteral("rows_shown_filtered")] = table->model()->rowCount();
    timed(result, QStringLiteral("filter_keystroke_no_match"), [&] { typeKey(filter, Qt::Key_Q, QStringLiteral("q")); });
    result[QStringLiteral("rows_shown_no_match")] = table->model()->rowCount();
    timed(result, QStringLiteral("filter_cleared"), [&] { filter->clear(); });
    timed(result, QStringLiteral("sort_by_run"), [&] { table->sortByColumn(RunsTableModel::RunColumn, Qt::AscendingOrder); });
    window->setConfirmation([](const QString&) { return true; });
    table->selectAll();
    QCoreApplication::processEvents();
    timed(result, QStringLiteral("delete_all"), [&] { deleteButton->click(); });
    result[QStringLiteral("rows_left")] = model->rowCount();
    result[QStringLiteral("history_left")] = qint64(RunHistory(RunHistory::defaultPath()).runs().size());
    window.reset();
    return result;
}

// dp-workbench with `imports` record files on its command line, against the
// same launch without them; both on an empty history, until the screenshot
// is saved and the program quits.
QJsonObject measureImport(const QString& workbench, int imports, const QString& folder)
{
    QDir().mkpath(folder + QStringLiteral("/records"));
    QStringList withImports;
    for (const dp::RunRecord& record : benchRuns(imports, 1'000'000)) {
        const QString file = folder + QStringLiteral("/records/") + QString::fromStdString(record.id) + ".json";
        dp::write_run_record(file.toStdString(), record);
        withImports << QStringLiteral("--import") << file;
    }
    const auto launch = [&](const QString& name, const QStringList& arguments) -> QJsonObject {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        const QString home = folder + QLatin1Char('/') + name;
        environment.insert(QStringLiteral("HOME"), home);
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
        environment.insert(QStringLiteral("DP_WORKBENCH_DATA_DIR"), home + QStringLiteral("/data"));
        if (!environment.contains(QStringLiteral("QT_QPA_PLATFORM")))
            environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        QProcess process;
        process.setProcessEnvironment(environment);
        const double cpuBefore = childrenCpuSeconds();
        QElapsedTimer clock;
        clock.start();
        process.start(workbench, arguments + QStringList{QStringLiteral("--screenshot"), home + QStringLiteral("/window.png")});
        const bool ended = process.waitForFinished(30 * 60 * 1000);
        const double elapsed = double(clock.nsecsElapsed()) * 1e-9;
        QJsonObject launched{{QStringLiteral("seconds"), elapsed},
                             {QStringLiteral("cpu_s"), childrenCpuSeconds() - cpuBefore},
                             {QStringLiteral("exit_code"), ended ? process.exitCode() : -1}};
        if (!ended || process.exitCode() != 0)
            launched[QStringLiteral("stderr")] = QString::fromLocal8Bit(process.readAllStandardError());
        const QString history = home + QStringLiteral("/data/runs.sqlite");
        launched[QStringLiteral("history_runs")] =
            QFile::exists(history) ? qint64(RunHistory(history).runs().size()) : 0;
        return launched;
    };
    const QJsonObject plain = launch(QStringLiteral("plain"), {});
    const QJsonObject imported = launch(QStringLiteral("imported"), withImports);

    // The same files through File > Import in a window of this process: what
    // the user waits for before the window answers, apart from the window's
    // teardown with that many runs drawn.
    qputenv("DP_WORKBENCH_DATA_DIR", (folder + QStringLiteral("/in-window/data")).toUtf8());
    QStringList files;
    for (qsizetype i = 1; i < withImports.size(); i += 2)
        files << withImports[i];
    QJsonObject inWindow;
    auto window = std::make_unique<MainWindow>();
    window->show();
    QCoreApplication::processEvents();
    timed(inWindow, QStringLiteral("import"), [&] { window->importRunRecords(files); });
    inWindow[QStringLiteral("rows")] = window->findChild<RunsTableModel*>()->rowCount();
    timed(inWindow, QStringLiteral("close_window"), [&] { window.reset(); });
    return {{QStringLiteral("records"), imports},
            {QStringLiteral("in_window"), inWindow},
            {QStringLiteral("launch_without_imports"), plain},
            {QStringLiteral("launch_with_imports"), imported},
            {QStringLiteral("import_s"), imported[QStringLiteral("seconds")].toDouble()
                                             - plain[QStringLiteral("seconds")].toDouble()},
            {QStringLiteral("import_cpu_s"), imported[QStringLiteral("cpu_s")].toDouble()
                                                 - plain[QStringLiteral("cpu_s")].toDouble()}};
}

}  // namespace

int main(int argc, char* argv[])
{
    useOffscreenUnlessAsked();
    QApplication app(argc, argv);
    nameBench("bench-runs-scale");

    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption sizesOption(QStringLiteral("sizes"), QString(), QStringLiteral("N,N"),
                                         QStringLiteral("1000,5000,20000"));
    const QCommandLineOption importsOption(QStringLiteral("imports"), QString(), QStringLiteral("N"),
                                           QStringLiteral("1000"));
    const QCommandLineOption workbenchOption(
        QStringLiteral("workbench"), QString(), QStringLiteral("PATH"),
        QCoreApplication::applicationDirPath() + QStringLiteral("/../app/dp-workbench"));
    parser.addOptions({sizesOption, importsOption, workbenchOption});
    parser.process(app);

    QTemporaryDir scratch;
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch.filePath(QStringLiteral("settings")));

    const double loadAtStart = loadAverage();
    QJsonArray histories;
    for (const QString& size : parser.value(sizesOption).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        QSettings().clear();  // no checked runs carried from one size to the next
        histories.append(measureHistory(size.toInt(), scratch.filePath(QStringLiteral("history-") + size)));
        std::fprintf(stderr, "bench-runs-scale: %s runs done\n", qPrintable(size));
    }
    QJsonObject result{
        {QStringLiteral("machine"), QJsonObject{{QStringLiteral("cpu_model"), cpuModel()},
                                                {QStringLiteral("nproc"), QThread::idealThreadCount()}}},
        {QStringLiteral("platform"), QApplication::platformName()},
        {QStringLiteral("load_avg_1min_start"), loadAtStart},
        {QStringLiteral("histories"), histories},
    };
    if (const int imports = parser.value(importsOption).toInt(); imports > 0)
        result[QStringLiteral("import")] =
            measureImport(parser.value(workbenchOption), imports, scratch.filePath(QStringLiteral("import")));
    result[QStringLiteral("load_avg_1min_end")] = loadAverage();
    std::printf("%s", QJsonDocument(result).toJson(QJsonDocument::Indented).constData());
    return 0;
}
