// dp-workbench: the Qt front end. Options preset the run settings (the rest
// are the last ones used); hidden ones let tests/ui/screenshots.sh and
// bench/workbench_soak.sh start runs at launch and save the window.
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QScreen>
#include <QStringList>
#include <QTabWidget>
#include <QTimer>
#include <QWidget>

#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "core/exception_message.h"
#include "devices/device.h"
#include "core/format.h"
#include "train/build_info.h"
#include "config/run_outputs.h"
#include "classroom_page.h"
#include "help_menu.h"
#include "interrupt_signals.h"
#include "main_window.h"
#include "ring_allreduce_view.h"
#include "study/study_file.h"
#include "study_window.h"
#include "run_config_panel.h"
#include "config/config_fields.h"
#include "workbench_resources.h"

namespace {

int intValue(const QCommandLineParser& parser, const QString& option, int minimum)
{
    bool ok = false;
    const int value = parser.value(option).toInt(&ok);
    if (!ok || value < minimum) {
        std::fprintf(stderr, "dp-workbench: --%s needs a whole number >= %d, got '%s'\n",
                     qPrintable(option), minimum, qPrintable(parser.value(option)));
        std::exit(2);
    }
    return value;
}

// Sets the setting `field` from the option's text, checked as dp-train checks
// its flag of the same name, and refused where the settings panel could only
// show it clamped (--batch-size 2147483647 became 65536). Throws dp::Error
// naming the option.
void applyPreset(dp::TrainConfig& config, const char* field, const QString& text)
{
    const dp::ConfigField& setting = dp::config_field(field);
    try {
        dp::set_field_text(setting, config, text.toStdString());
    } catch (const dp::Error& error) {
        throw dp::Error(std::string(setting.flag) + ": " + error.what());
    }
    dp::validate_setting(setting, config);
    const auto range = RunConfigPanel::numberRange(field);
    const std::optional<double> value = dp::field_number(setting, config);
    if (range && value && !(*value >= range->minimum && *value <= range->maximum))
        throw dp::Error(std::string(setting.flag) + " must be " + dp::format("%g to %g", range->minimum, range->maximum) +
                        " in the workbench (got " + text.toStdString() + "); dp-train takes more");
    if (setting.name == std::string_view("devices"))
        dp::select_devices(config.devices);  // an unknown device is refused, not remembered
}

QCommandLineOption hidden(QCommandLineOption option)
{
    option.setFlags(QCommandLineOption::HiddenFromHelp);
    return option;
}

// Saves the window to `path` and quits, with `exitCode` unless the file
// cannot be written.
void saveAndQuit(MainWindow& window, const QString& path, int exitCode)
{
    // An opened study (--import study.json) is what the picture is of.
    const QList<StudyWindow*> studies = window.findChildren<StudyWindow*>(Qt::FindDirectChildrenOnly);
    QWidget* shown = studies.isEmpty() ? static_cast<QWidget*>(&window) : studies.last();
    if (!shown->grab().save(path)) {
        std::fprintf(stderr, "dp-workbench: cannot write %s\n", qPrintable(path));
        exitCode = 1;
    }
    QCoreApplication::exit(exitCode);
}

// Saves the window once the Classroom's ring all-reduce has timed its steps
// on this machine's threads (a second or several on a busy machine), or
// after 30 seconds without.
void captureTimedRing(MainWindow& window, const QString& path, int waitedMs = 0)
{
    constexpr int kPollMs = 250;
    const auto* ring = window.findChild<RingAllReduceView*>();
    if (waitedMs >= 30000 || (waitedMs > 0 && !ring->awaitsMeasurement())) {
        saveAndQuit(window, path, 0);
        return;
    }
    QTimer::singleShot(kPollMs, &window,
                       [&window, path, waitedMs] { captureTimedRing(window, path, waitedMs + kPollMs); });
}

// Saves the window once the charts hold `afterEpochs` points of a run, or,
// with afterEpochs 0, once every queued run has ended. A run that fails, or
// ends before the epoch, is captured as it ended (to show why), said in one
// line, and the program exits 1.
void captureDuringRuns(MainWindow& window, const QString& path, int afterEpochs)
{
    // Time for the charts to lay out the new points before the picture.
    constexpr int kSettleMs = 400;
    const auto saveSoon = [&window, path](int exitCode) {
        QTimer::singleShot(kSettleMs, &window,
                           [&window, path, exitCode] { saveAndQuit(window, path, exitCode); });
    };
    if (afterEpochs == 0) {
        // The first failure is the one to say (a comparison's next run may fail alike).
        auto firstFailure = std::make_shared<QString>();
        QObject::connect(&window, &MainWindow::runEnded, &window,
                         [&window, firstFailure, saveSoon](const QString& failure) {
                             if (firstFailure->isEmpty())
                                 *firstFailure = failure;
                             if (window.isRunning())
                                 return;
                             if (!firstFailure->isEmpty())
                                 std::fprintf(stderr, "dp-workbench: the run failed: %s\n",
                                              qPrintable(*firstFailure));
                             saveSoon(firstFailure->isEmpty() ? 0 : 1);
                         });
        return;
    }
    const QMetaObject::Connection endedEarly =
        QObject::connect(&window, &MainWindow::runEnded, &window, [saveSoon](const QString& failure) {
            if (failure.isEmpty())
                std::fprintf(stderr, "dp-workbench: the run ended before the screenshot epoch\n");
            else
                std::fprintf(stderr, "dp-workbench: the run failed: %s\n", qPrintable(failure));
            saveSoon(1);
        });
    QObject::connect(&window, &MainWindow::epochPlotted, &window,
                     [endedEarly, afterEpochs, saveSoon](int epoch) {
                         if (epoch != afterEpochs)
                             return;
                         QObject::disconnect(endedEarly);
                         saveSoon(0);
                     });
}

int runWorkbench(QApplication& app);

// Qt aborts (a core dump) when it finds no windowing system to start on.
bool hasWindowingSystem()
{
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        if (const char* value = std::getenv(name); value && *value)
            return true;
    return false;
}

// Qt's platform plugin cannot start (a DISPLAY with no X server there, a
// QT_QPA_PLATFORM naming no plugin): Qt warns in its qt.qpa categories, then
// qFatal aborts with a core dump after four lines. While QApplication starts,
// those warnings wait here; a fatal message becomes one line naming the first
// of them and exit code 1, as the missing display is said above.
QStringList platformStartWarnings;

void platformStartMessages(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    const QString line = qFormatLogMessage(type, context, message);
    if (type == QtFatalMsg) {
        QString reason = platformStartWarnings.isEmpty() ? message.section(QLatin1Char('\n'), 0, 0)
                                                          : platformStartWarnings.first();
        reason = reason.trimmed();
        if (reason.endsWith(QLatin1Char('.')))
            reason.chop(1);
        std::fprintf(stderr, "dp-workbench: no window system could be started (%s): set DISPLAY to a running X "
                             "server, or QT_QPA_PLATFORM to one of Qt's platforms (offscreen: no window); "
                             "dp-train trains without a window\n",
                     qPrintable(reason));
        std::_Exit(1);
    }
    if (context.category && std::strncmp(context.category, "qt.qpa", 6) == 0) {
        platformStartWarnings << line;
        return;
    }
    std::fprintf(stderr, "%s\n", qPrintable(line));
}

bool asksForHelp(int argc, char* argv[])
{
    for (int i = 1; i < argc; ++i)
        for (const char* option : {"-h", "--help", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], option) == 0)
                return true;
    return false;
}

}  // namespace

// Any exception that reaches here becomes one line and exit code 1, never an abort.
int main(int argc, char* argv[])
{
    if (!hasWindowingSystem()) {
        // Help is text: it needs no screen.
        if (!asksForHelp(argc, argv)) {
            std::fprintf(stderr, "dp-workbench: no display to open its window on (DISPLAY is not set): "
                                 "start it in a desktop session, over ssh -X or under xvfb-run; "
                                 "dp-train trains without a window\n");
            return 1;
        }
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    }
    qInstallMessageHandler(platformStartMessages);
    QApplication app(argc, argv);
    // Started: Qt's own handler again, and the platform's warnings said after all.
    qInstallMessageHandler(nullptr);
    for (const QString& warning : std::as_const(platformStartWarnings))
        std::fprintf(stderr, "%s\n", qPrintable(warning));
    try {
        return runWorkbench(app);
    } catch (...) {
        std::fprintf(stderr, "dp-workbench: %s\n", dp::current_exception_message().c_str());
        return 1;
    }
}

namespace {

// Whether the command line presets `field`: every setting the workbench
// remembers that dp-train has a flag for, each option being that flag with
// its value name (config/config_fields.h), so a new setting needs no line here.
bool isPreset(const dp::ConfigField& field)
{
    return field.flag && (field.scope & dp::ConfigField::remembered);
}

QString optionName(const dp::ConfigField& field)
{
    return QString::fromLatin1(field.flag).mid(2);  // "--batch-size" -> "batch-size"
}

// The presets, then the options tests/ui/screenshots.sh and the soak bench
// use to start runs at launch and save the window (hidden, but for --import
// and --screenshot).
void declareOptions(QCommandLineParser& parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Train networks data-parallel and watch accuracy, loss and speedup live. Options preset "
        "the settings panel; without them it shows the last settings used."));
    parser.addHelpOption();  // -h, --help and --help-all (Qt's own options too)
    parser.addVersionOption();
    for (const dp::ConfigField& field : dp::config_fields()) {
        if (!isPreset(field))
            continue;
        // A boolean's flag takes no value: it sets the setting (or clears a "--no-" one).
        parser.addOption({optionName(field),
                          QStringLiteral("Preset the %1 (as dp-train's %2).")
                              .arg(QString::fromUtf8(field.label), QString::fromLatin1(field.flag)),
                          field.value_name ? QString::fromLatin1(field.value_name) : QString()});
    }
    parser.addOptions({
        hidden({QStringLiteral("start"), QStringLiteral("Start a run at launch.")}),
        hidden({QStringLiteral("compare"), QStringLiteral("Start Compare 1 vs N at launch.")}),
        hidden({QStringLiteral("lesson"), QStringLiteral("Start the lesson NAME at launch (the Lessons menu)."),
                QStringLiteral("NAME")}),
        hidden({QStringLiteral("scale-lr"), QStringLiteral("Compare with batch and lr scaled by N.")}),
        hidden({QStringLiteral("presenter"), QStringLiteral("Open in presenter mode.")}),
        hidden({QStringLiteral("maximized"), QStringLiteral("Open maximized (screenshots under a window manager).")}),
        // Shown (issue 41): how a cluster job's record or a sweep's study is opened.
        {QStringLiteral("import"), QStringLiteral("Import a run record JSON, or open a study (dp-train --sweep's), at launch (repeatable)."),
         QStringLiteral("FILE")},
        hidden({QStringLiteral("show-tab"), QStringLiteral("Show the view tab with this title."),
                QStringLiteral("TITLE")}),
        hidden({QStringLiteral("scaling-link"),
                QStringLiteral("Predict on the Scaling tab over the link whose name starts so (NVLink)."),
                QStringLiteral("NAME")}),
        hidden({QStringLiteral("ring-step"),
                QStringLiteral("Show the Classroom's ring all-reduce after N steps (screenshots)."),
                QStringLiteral("N")}),
        {QStringLiteral("screenshot"), QStringLiteral("Save the window to PATH, then quit."),
         QStringLiteral("PATH")},
        hidden({QStringLiteral("screenshot-after-epochs"),
                QStringLiteral("With --start, --compare or --lesson: save once N epochs are plotted; 0: once all runs end."),
                QStringLiteral("N"), QStringLiteral("0")}),
    });
}

// Applies the command line's presets to `config`; throws dp::Error naming the option.
void applyPresets(const QCommandLineParser& parser, dp::TrainConfig& config)
{
    for (const dp::ConfigField& field : dp::config_fields()) {
        const QString option = optionName(field);
        if (!isPreset(field) || !parser.isSet(option))
            continue;
        const bool clears = QString::fromLatin1(field.flag).startsWith(QLatin1String("--no-"));
        applyPreset(config, field.name,
                    field.value_name ? parser.value(option)
                                     : (clears ? QStringLiteral("false") : QStringLiteral("true")));
    }
}

// Parses the command line and refuses, before a window exists, what cannot
// start: the exit code to leave with (2: usage), or none to go on.
std::optional<int> parseCommandLine(QCommandLineParser& parser)
{
    // parse(), not process(): a bad option is a usage error, exit code 2 as dp-train's.
    if (!parser.parse(QCoreApplication::arguments())) {
        QString problem = parser.errorText();
        if (problem.endsWith(QLatin1Char('.')))
            problem.chop(1);
        std::fprintf(stderr, "dp-workbench: %s (see dp-workbench --help)\n", qPrintable(problem));
        return 2;
    }
    // Text, then exit 0, before a window (and with it the settings and the
    // history) exists. parse() leaves the built-in options to the caller:
    // process() shows what --help-all asks, Qt's own options with ours.
    if (parser.isSet(QStringLiteral("help-all")))
        parser.process(QCoreApplication::arguments());
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    try {
        // The device list comes from the environment too (DP_CPU_DEVICES): a
        // bad value is a usage error, said before a window opens.
        dp::available_devices();
        // The options preset the remembered settings; a bad value exits here,
        // in a trial application, before a window exists to remember it.
        dp::TrainConfig trial;
        applyPresets(parser, trial);
    } catch (const dp::Error& error) {
        std::fprintf(stderr, "dp-workbench: %s\n", dp::render_settings(error.what(), dp::flag_or_label).c_str());
        return 2;
    }
    return std::nullopt;
}

// Sets the window up as the options ask: presets, comparison scaling,
// presenter mode, imported records, the tab shown. A record that cannot be
// imported is bad input, as a bad option is: exit code 2.
std::optional<int> prepareWindow(MainWindow& window, const QCommandLineParser& parser)
{
    dp::TrainConfig config = window.runConfig();
    applyPresets(parser, config);
    window.setRunConfig(config);
    if (parser.isSet(QStringLiteral("scale-lr")))
        window.setComparisonScaling(true);
    if (parser.isSet(QStringLiteral("presenter")))
        window.setPresenterMode(true);
    // All at once: one history transaction and one relabelling for any number of files.
    // A study file (dp-train --sweep's) opens in a window of its own; the rest are run records.
    QStringList records;
    for (const QString& path : parser.values(QStringLiteral("import"))) {
        if (!dp::is_study_file(path.toStdString())) {
            records.append(path);
        } else if (QString problem; !openStudyWindow(path, &window, &problem)) {
            std::fprintf(stderr, "dp-workbench: cannot open the study: %s\n", qPrintable(problem));
            return 2;
        }
    }
    if (!records.isEmpty()) {
        if (QString problem; !window.importRunRecords(records, &problem)) {
            // The reason names the file already.
            std::fprintf(stderr, "dp-workbench: cannot import: %s\n", qPrintable(problem));
            return 2;
        }
    }
    if (parser.isSet(QStringLiteral("show-tab"))) {
        auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->tabText(i).compare(parser.value(QStringLiteral("show-tab")), Qt::CaseInsensitive) == 0)
                tabs->setCurrentIndex(i);
        }
    }
    if (parser.isSet(QStringLiteral("scaling-link"))) {
        auto* links = window.findChild<QComboBox*>(QStringLiteral("predictionLink"));
        for (int i = 0; i < links->count(); ++i) {
            if (links->itemText(i).startsWith(parser.value(QStringLiteral("scaling-link")), Qt::CaseInsensitive))
                links->setCurrentIndex(i);
        }
    }
    if (parser.isSet(QStringLiteral("ring-step"))) {
        auto* classroom = window.findChild<ClassroomPage*>(QStringLiteral("classroomPage"));
        classroom->showRingAllReduce(true);
        classroom->ringAllReduceView()->setStep(intValue(parser, QStringLiteral("ring-step"), 0));
    }
    return std::nullopt;
}

// Starts what the options ask at launch: the screenshot's timer, then a run
// or a comparison. The exit code to leave with, or none to show the window.
std::optional<int> startAtLaunch(MainWindow& window, const QCommandLineParser& parser)
{
    const bool startsRuns = parser.isSet(QStringLiteral("start")) || parser.isSet(QStringLiteral("compare"))
        || parser.isSet(QStringLiteral("lesson"));
    if (parser.isSet(QStringLiteral("screenshot"))) {
        const QString path = parser.value(QStringLiteral("screenshot"));
        // The output-path rule dp-train's outputs follow: never the history or the kernel cache.
        try {
            dp::check_output_paths({{path.toStdString(), "--screenshot"}}, dp::program_files());
        } catch (const dp::Error& error) {
            std::fprintf(stderr, "dp-workbench: %s\n", error.what());
            return 2;
        }
        if (startsRuns)
            captureDuringRuns(window, path, intValue(parser, QStringLiteral("screenshot-after-epochs"), 0));
        else if (parser.isSet(QStringLiteral("ring-step")))
            captureTimedRing(window, path);
        else
            QTimer::singleShot(500, &window, [&window, path] { saveAndQuit(window, path, 0); });
    }
    if (parser.isSet(QStringLiteral("lesson")))
        window.startLesson(parser.value(QStringLiteral("lesson")));
    else if (parser.isSet(QStringLiteral("compare")))
        window.startComparison();
    else if (parser.isSet(QStringLiteral("start")))
        window.startRun();
    // Settings that cannot run start nothing, so no run would ever end: a
    // script that asked for a run learns why at once.
    if (startsRuns && !window.isRunning()) {
        std::fprintf(stderr, "dp-workbench: %s\n", qPrintable(window.statusText()));
        return 2;
    }
    return std::nullopt;
}

int runWorkbench(QApplication& app)
{
    // QSettings and the run history's folder are named after these.
    QApplication::setOrganizationName(QStringLiteral("DP Workbench"));
    QApplication::setApplicationName(QStringLiteral("DP Workbench"));
    // Desktops match the window to resources/dp-workbench.desktop by this name.
    QGuiApplication::setDesktopFileName(QStringLiteral("dp-workbench"));
    QApplication::setWindowIcon(workbenchIcon());
    // What --version prints, as dp-train's first line.
    const dp::BuildInfo build = dp::build_info();
    QApplication::setApplicationVersion(QString::fromStdString(
        build.version + (build.commit.empty() ? std::string(" (not built from a git checkout)")
                                              : " (git " + build.commit + ")")));

    QCommandLineParser parser;
    declareOptions(parser);
    if (const auto exitCode = parseCommandLine(parser))
        return *exitCode;
    MainWindow window;
    addAboutAction(&window, build);
    // SIGTERM, SIGINT and SIGHUP end the workbench as Quit does, the run in
    // flight stopped and recorded first (as dp-train ends).
    InterruptSignals interrupts;
    QObject::connect(&interrupts, &InterruptSignals::interrupted, &window, [&window](int signal) {
        std::fprintf(stderr, "dp-workbench: %s: %s\n", qPrintable(InterruptSignals::name(signal)),
                     window.isRunning() ? "stopping after the batch in flight; the run is recorded as stopped"
                                        : "quitting");
        // A dialog open (a question, a file chooser) is answered "cancel", so the window can close.
        for (int dialogs = 0; dialogs < 8 && QApplication::activeModalWidget(); ++dialogs)
            QApplication::activeModalWidget()->close();
        window.closeAfterRun();
    });
    // A laptop's 1280x720 gets a window that fits it, not one to drag into view.
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        window.resize(window.size().boundedTo(screen->availableSize()));
    if (const auto exitCode = prepareWindow(window, parser))
        return *exitCode;
    if (const auto exitCode = startAtLaunch(window, parser))
        return *exitCode;
    if (parser.isSet(QStringLiteral("maximized")))
        window.showMaximized();
    else
        window.show();
    const int exitCode = app.exec();
    // As a shell reports a program the signal ended, as dp-train exits.
    return interrupts.caughtSignal() ? 128 + interrupts.caughtSignal() : exitCode;
}

}  // namespace
