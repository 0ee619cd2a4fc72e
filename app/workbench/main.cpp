// dp-workbench: the Qt front end. Hidden options let scripts/screenshot start
// a run at launch and save the window mid-run.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

#include "main_window.h"

namespace {

struct ScreenshotRequest {
    QString path;
    int afterEpochs = 3;
};

int intValue(const QCommandLineParser& parser, const QCommandLineOption& option, int minimum)
{
    bool ok = false;
    const int value = parser.value(option).toInt(&ok);
    if (!ok || value < minimum) {
        std::fprintf(stderr, "dp-workbench: --%s needs a whole number >= %d, got '%s'\n",
                     qPrintable(option.names().constFirst()), minimum,
                     qPrintable(parser.value(option)));
        std::exit(2);
    }
    return value;
}

QCommandLineOption hiddenOption(const QString& name, const QString& description,
                                const QString& valueName, const QString& defaultValue = {})
{
    QCommandLineOption option(name, description, valueName, defaultValue);
    option.setFlags(QCommandLineOption::HiddenFromHelp);
    return option;
}

// Starts the window's run and saves the window to a PNG once the chart holds
// `afterEpochs` points, then quits. A run that ends sooner is captured as it
// ended (to show why) and the program exits non-zero.
void captureRun(MainWindow& window, const ScreenshotRequest& request)
{
    const auto saveAndQuit = [&window, path = request.path](int exitCode) {
        if (!window.grab().save(path)) {
            std::fprintf(stderr, "dp-workbench: cannot write %s\n", qPrintable(path));
            exitCode = 1;
        }
        QCoreApplication::exit(exitCode);
    };
    const QMetaObject::Connection endedEarly =
        QObject::connect(&window, &MainWindow::runEnded, &window, [saveAndQuit] {
            std::fprintf(stderr, "dp-workbench: the run ended before the screenshot epoch\n");
            saveAndQuit(1);
        });
    QObject::connect(&window, &MainWindow::epochPlotted, &window,
                     [&window, saveAndQuit, endedEarly, afterEpochs = request.afterEpochs](int epoch) {
                         if (epoch != afterEpochs)
                             return;
                         QObject::disconnect(endedEarly);
                         // Give the chart a moment to lay out its new point.
                         QTimer::singleShot(300, &window, [saveAndQuit] { saveAndQuit(0); });
                     });
    window.startRun();
}

}  // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("DP Workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Train a network on Fashion-MNIST and watch its test accuracy."));
    parser.addHelpOption();
    const QCommandLineOption screenshotOption = hiddenOption(
        QStringLiteral("screenshot"), QStringLiteral("Start a run and save the window to <path>."),
        QStringLiteral("path"));
    const QCommandLineOption afterEpochsOption = hiddenOption(
        QStringLiteral("screenshot-after-epochs"),
        QStringLiteral("Save the screenshot once <epochs> epochs are plotted."),
        QStringLiteral("epochs"), QStringLiteral("3"));
    const QCommandLineOption limitTrainOption = hiddenOption(
        QStringLiteral("limit-train"), QStringLiteral("Train on the first <count> images."),
        QStringLiteral("count"), QStringLiteral("0"));
    const QCommandLineOption limitTestOption = hiddenOption(
        QStringLiteral("limit-test"), QStringLiteral("Test on the first <count> images."),
        QStringLiteral("count"), QStringLiteral("0"));
    parser.addOptions({screenshotOption, afterEpochsOption, limitTrainOption, limitTestOption});
    parser.process(app);

    MainWindow window;
    dp::TrainConfig config;
    config.limit_train = intValue(parser, limitTrainOption, 0);
    config.limit_test = intValue(parser, limitTestOption, 0);
    window.setRunConfig(config);
    window.show();

    if (parser.isSet(screenshotOption))
        captureRun(window, {parser.value(screenshotOption),
                            intValue(parser, afterEpochsOption, 1)});
    return app.exec();
}
