// dp-workbench: the Qt front end. Options preset the run settings; hidden
// ones let scripts/screenshot start a run at launch and save the window.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

#include "main_window.h"

namespace {

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

QCommandLineOption hidden(QCommandLineOption option)
{
    option.setFlags(QCommandLineOption::HiddenFromHelp);
    return option;
}

// Starts the window's run and saves the window to `path` once the chart holds
// `afterEpochs` points, then quits. A run that ends sooner is captured as it
// ended (to show why) and the program exits non-zero.
void captureRun(MainWindow& window, const QString& path, int afterEpochs)
{
    const auto saveAndQuit = [&window, path](int exitCode) {
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
                     [&window, saveAndQuit, endedEarly, afterEpochs](int epoch) {
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

    const dp::TrainConfig defaults;
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Train a network on Fashion-MNIST and watch its test accuracy."));
    parser.addHelpOption();
    const QCommandLineOption batchSizeOption(
        QStringLiteral("batch-size"), QStringLiteral("Preset the batch size."),
        QStringLiteral("N"), QString::number(defaults.batch_size));
    const QCommandLineOption limitTrainOption(
        QStringLiteral("limit-train"), QStringLiteral("Preset training on the first N images."),
        QStringLiteral("N"), QString::number(defaults.limit_train));
    const QCommandLineOption limitTestOption(
        QStringLiteral("limit-test"), QStringLiteral("Preset testing on the first N images."),
        QStringLiteral("N"), QString::number(defaults.limit_test));
    const QCommandLineOption screenshotOption = hidden(
        {QStringLiteral("screenshot"), QStringLiteral("Start a run and save the window to PATH."),
         QStringLiteral("PATH")});
    const QCommandLineOption afterEpochsOption = hidden(
        {QStringLiteral("screenshot-after-epochs"),
         QStringLiteral("Save the screenshot once N epochs are plotted."), QStringLiteral("N"),
         QStringLiteral("3")});
    parser.addOptions(
        {batchSizeOption, limitTrainOption, limitTestOption, screenshotOption, afterEpochsOption});
    parser.process(app);

    dp::TrainConfig config = defaults;
    config.batch_size = intValue(parser, batchSizeOption, 1);
    config.limit_train = intValue(parser, limitTrainOption, 0);
    config.limit_test = intValue(parser, limitTestOption, 0);

    MainWindow window;
    window.setRunConfig(config);
    window.show();
    if (parser.isSet(screenshotOption))
        captureRun(window, parser.value(screenshotOption), intValue(parser, afterEpochsOption, 1));
    return app.exec();
}
