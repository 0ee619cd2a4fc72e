// The charts as a user meets them, without training: run records drawn on a
// chart board (offscreen), its axes, legend, hover readout, zoom (linked
// across the charts over epochs), loss smoothing, style keys, log scale and
// export; and the run palette.
#include <QCategoryAxis>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QLineSeries>
#include <QPushButton>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTransform>
#include <QVBoxLayout>
#include <QXmlStreamReader>
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "chart_axis.h"
#include "chart_key.h"
#include "chart_readout.h"
#include "comparison_summary_card.h"
#include "run_comparison.h"
#include "chart_board.h"
#include "device_utilisation_view.h"
#include "shown_board.h"
#include "epoch_metric_chart.h"
#include "gap_waterfall_chart.h"
#include "loss_chart.h"
#include "run_legend.h"
#include "run_palette.h"
#include "batch_split_view.h"
#include "scaling_prediction_chart.h"
#include "widget_image_export.h"
#include "speedup_chart.h"
#include "efficiency_heat_map.h"
#include "study_table_model.h"
#include "study_window.h"
#include "sweep_dialog.h"
#include "text_floor.h"
#include "record/run_record.h"
#include "record/run_record_json.h"
#include "study/study_file.h"
#include "study/sweep_grid.h"

namespace {

// CIELAB of an sRGB colour (D65 white).
std::array<double, 3> lab(const QColor& color)
{
    const auto linear = [](double channel) {
        return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
    };
    const double r = linear(color.redF()), g = linear(color.greenF()), b = linear(color.blueF());
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    const auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// CIEDE2000: how different two colours look (about 2 is just noticeable).
double colourDifference(const QColor& first, const QColor& second)
{
    constexpr double kPi = 3.14159265358979323846;
    const auto degrees = [](double radians) { return radians * 180 / kPi; };
    const auto radians = [](double degrees) { return degrees * kPi / 180; };
    const auto [l1, a1, b1] = lab(first);
    const auto [l2, a2, b2] = lab(second);
    const double meanChroma = (std::hypot(a1, b1) + std::hypot(a2, b2)) / 2;
    const double g = 0.5 * (1 - std::sqrt(std::pow(meanChroma, 7) / (std::pow(meanChroma, 7) + std::pow(25.0, 7))));
    const double a1p = (1 + g) * a1, a2p = (1 + g) * a2;
    const double c1 = std::hypot(a1p, b1), c2 = std::hypot(a2p, b2);
    const auto hue = [&](double b, double a) { return std::fmod(degrees(std::atan2(b, a)) + 360, 360); };
    const double h1 = hue(b1, a1p), h2 = hue(b2, a2p);
    double dh = 0;
    if (c1 * c2 != 0)
        dh = h2 - h1 > 180 ? h2 - h1 - 360 : (h2 - h1 < -180 ? h2 - h1 + 360 : h2 - h1);
    const double dL = l2 - l1, dC = c2 - c1;
    const double dH = 2 * std::sqrt(c1 * c2) * std::sin(radians(dh) / 2);
    const double meanL = (l1 + l2) / 2, meanC = (c1 + c2) / 2;
    double meanH = h1 + h2;
    if (c1 * c2 != 0)
        meanH = std::abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 + (h1 + h2 < 360 ? 360 : -360)) / 2;
    const double t = 1 - 0.17 * std::cos(radians(meanH - 30)) + 0.24 * std::cos(radians(2 * meanH))
            + 0.32 * std::cos(radians(3 * meanH + 6)) - 0.20 * std::cos(radians(4 * meanH - 63));
    const double rotation = 30 * std::exp(-std::pow((meanH - 275) / 25, 2));
    const double rc = 2 * std::sqrt(std::pow(meanC, 7) / (std::pow(meanC, 7) + std::pow(25.0, 7)));
    const double sl = 1 + 0.015 * std::pow(meanL - 50, 2) / std::sqrt(20 + std::pow(meanL - 50, 2));
    const double sc = 1 + 0.045 * meanC, sh = 1 + 0.015 * meanC * t;
    const double rt = -std::sin(radians(2 * rotation)) * rc;
    return std::sqrt(std::pow(dL / sl, 2) + std::pow(dC / sc, 2) + std::pow(dH / sh, 2)
                     + rt * (dC / sc) * (dH / sh));
}

// A finished run of `epochsDone` of `planned` epochs on `devices` CPUs.
dp::RunRecord finishedRun(const std::string& id, int devices, int planned, int epochsDone)
{
    dp::RunRecord record;
    record.id = id;
    record.status = dp::RunStatus::finished;
    record.config.epochs = planned;
    for (int i = 0; i < devices; ++i)
        record.config.devices.push_back("cpu:" + std::to_string(i));
    for (int epoch = 1; epoch <= epochsDone; ++epoch)
        record.epochs.push_back({epoch, 1.0 / epoch, 0.6 + 0.03 * epoch, 0.55 + 0.03 * epoch, 2.0});
    return record;
}

// A run that learns nothing: accuracy at chance level (10 classes), 0.105-0.110.
dp::RunRecord chanceLevelRun(const std::string& id)
{
    dp::RunRecord record = finishedRun(id, 1, 3, 3);
    for (dp::EpochMetrics& epoch : record.epochs) {
        epoch.train_acc = 0.1 + 0.002 * epoch.epoch;
        epoch.test_acc = 0.1075 + 0.0025 * (epoch.epoch - 2);
    }
    return record;
}


QValueAxis* axisOf(const RunChartView& view, Qt::Orientation orientation)
{
    return qobject_cast<QValueAxis*>(view.chart()->axes(orientation).value(0));
}

// Where a data point of `series` is drawn, in the view's coordinates.
QPoint drawnAt(const RunChartView& view, const QLineSeries& series, QPointF position)
{
    // mapToPosition only reads the series, but takes it non-const.
    auto* mapped = const_cast<QLineSeries*>(&series);
    return view.mapFromScene(view.chart()->mapToScene(view.chart()->mapToPosition(position, mapped)));
}

// A text of an SVG file and where it starts (its baseline's left end), in
// the picture's coordinates.
struct SvgText {
    QString text;
    QPointF at;
};

// The transform of an SVG group: QSvgGenerator writes matrix(a,b,c,d,e,f).
QTransform svgTransform(QStringView attribute)
{
    if (!attribute.startsWith(u"matrix("))
        return {};
    const QStringList numbers =
            attribute.mid(7, attribute.size() - 8).toString().split(QLatin1Char(','));
    if (numbers.size() != 6)
        return {};
    return QTransform(numbers[0].toDouble(), numbers[1].toDouble(), numbers[2].toDouble(),
                      numbers[3].toDouble(), numbers[4].toDouble(), numbers[5].toDouble());
}

std::vector<SvgText> svgTexts(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    std::vector<SvgText> texts;
    std::vector<QTransform> groups{QTransform()};
    QXmlStreamReader svg(&file);
    while (!svg.atEnd()) {
        svg.readNext();
        if (svg.isStartElement() && svg.name() == u"g") {
            groups.push_back(svgTransform(svg.attributes().value(QStringLiteral("transform")))
                             * groups.back());
        } else if (svg.isEndElement() && svg.name() == u"g") {
            groups.pop_back();
        } else if (svg.isStartElement() && svg.name() == u"text") {
            const QPointF at(svg.attributes().value(QStringLiteral("x")).toDouble(),
                             svg.attributes().value(QStringLiteral("y")).toDouble());
            const QTransform& transform = groups.back();
            const QString text = svg.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
            if (!text.isEmpty())
                texts.push_back({text, transform.map(at)});
        }
    }
    return texts;
}

// Whether every label of `axis` is a whole number.
bool labelsAreWholeNumbers(QCategoryAxis& axis)
{
    const QStringList labels = axis.categoriesLabels();
    return !labels.isEmpty() && std::all_of(labels.begin(), labels.end(), [](const QString& label) {
        bool number = false;
        const double value = label.toDouble(&number);
        return number && value == std::round(value);
    });
}

// The panel's run a sweep starts from: the random data set, which needs no files.
dp::TrainConfig sweepBase()
{
    dp::TrainConfig config;
    config.model = "linear";
    config.dataset = "random";
    config.batch_size = 64;
    config.lr = 0.1f;
    config.epochs = 2;
    return config;
}

// `count` CPU devices, as the panel's device list has them checked.
std::vector<dp::DeviceInfo> cpuDevices(int count)
{
    std::vector<dp::DeviceInfo> devices(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        devices[std::size_t(i)].id = "cpu:" + std::to_string(i);
    return devices;
}

// The record of a planned run that finished with steady epochs of `seconds`.
dp::RunRecord finishedPlannedRun(const dp::PlannedRun& run, double seconds)
{
    dp::RunRecord record = dp::start_run_record(run.config, "dp-workbench");
    record.comparison_group = run.comparison_group;
    record.status = dp::RunStatus::finished;
    record.epochs = {{1, 0.9, 0.6, 0.7, seconds * 1.5}, {2, 0.5, 0.8, 0.8, seconds}};
    return record;
}

// A sweep of devices=1,2 batch-size=64,256 lr=0.1,0.2, once each: 8 runs.
dp::StudyPlan twoLrSweep()
{
    dp::SweepGrid grid;
    dp::add_sweep_axis(grid, "devices=1,2");
    dp::add_sweep_axis(grid, "batch-size=64,256");
    dp::add_sweep_axis(grid, "lr=0.1,0.2");
    return dp::sweep_plan(sweepBase(), cpuDevices(2), grid, 1);
}

// Its steady seconds per epoch: 2 s on 1 device; on 2 devices at lr 0.1,
// 1.6 s at batch 64 (efficiency 62.5%) and 1 s at 256 (100%); at lr 0.2,
// 1.25 s (80%) at either batch.
double sweepSeconds(const dp::PlannedRun& run)
{
    if (run.config.devices.size() == 1)
        return 2.0;
    if (run.config.lr == 0.2f)
        return 1.25;
    return run.config.batch_size == 64 ? 1.6 : 1.0;
}

}  // namespace

class TestUiCharts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void driftIsWordedAsPathsNotDivergence();
    void busyAndScalingAreSaidOnTheCard();
    void twelveRunColoursStayDistinctAndAvoidTheIdealGrey();
    void axisEndsRoundToLabelsCloseToTheData();
    void logAxisLabelsRoundValues();
    void chartsOverEpochsShareOneXRange();
    void aOneEpochRunShowsItsPointWithAMarker();
    void accuracyShowsTrainDashedInTheRunColour();
    void legendNamesEveryRunInFull();
    void hoverReadsOutEveryRunAtTheMouseX();
    void dragAndWheelZoomAndDoubleClickResets();
    void zoomingOneChartZoomsTheOthersOverEpochs();
    void smoothingStrengthRedrawsTheLossOverTheRawOne();
    void aPastRunDrawsItsKeptBatchLossesOnEachXAxis();
    void styleKeysSitAboveThePlot();
    void logScaleReplotsTheLoss();
    void exportsHaveOneSizeWhateverTheScreen();
    void exportedTextStaysBesideThePlot();
    void accuracyAxisIsZeroToOneAtChanceLevel();
    void secondsAndGapAxesStartAtZero();
    void epochTicksAreWholeNumbers();
    void stepViewAndScalingChartExportAtThePictureSize();
    void studyOpensAsTableAndEfficiencyHeatMap();
    void sweepDialogChecksEveryEditThroughTheEngine();
    void sweepDialogPlansTheGridAsTyped();
    void runningStudyWindowFillsAsRunsEnd();
    void heatMapShowsTheLearningRatePicked();
    void gapWaterfallWalksFromIdealToMeasured();
    void gapWaterfallDrawsNoiseGreyAndNoNegativeShares();
    void utilisationShowsEachDeviceOfTheNewestRun();

private:
    QTemporaryDir scratch_;
};

void TestUiCharts::initTestCase()
{
    // The board remembers the smoothing strength: not in the user's settings.
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch_.filePath("settings"));
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, scratch_.filePath("settings"));
    QSettings().clear();
}

void TestUiCharts::twelveRunColoursStayDistinctAndAvoidTheIdealGrey()
{
    constexpr int kRuns = 12;
    double closestPair = 100;
    for (int i = 0; i < kRuns; ++i) {
        for (int j = i + 1; j < kRuns; ++j)
            closestPair = std::min(closestPair, colourDifference(runColor(i), runColor(j)));
    }
    // tab10, the old palette, had red and brown at 16 (and its 8th colour was grey).
    QVERIFY2(closestPair >= 20, qPrintable(QString::number(closestPair)));
    for (int i = 0; i < runPaletteSize(); ++i) {
        const double fromGrey = colourDifference(runColor(i), referenceLineColor());
        QVERIFY2(fromGrey >= 20, qPrintable(QStringLiteral("colour %1: %2").arg(i).arg(fromGrey)));
        for (int j = i + 1; j < runPaletteSize(); ++j)
            QVERIFY(colourDifference(runColor(i), runColor(j)) >= 17);
    }
    QCOMPARE(runColor(runPaletteSize()), runColor(0));
}

void TestUiCharts::axisEndsRoundToLabelsCloseToTheData()
{
    ChartAxis axis;
    axis.setMaxTicks(6);
    // Losses under 2.5 once got an axis up to 6.
    axis.fit(0.3, 2.4, 0.05);
    QVERIFY2(axis.max() >= 2.4 && axis.max() <= 2.6, qPrintable(QString::number(axis.max())));
    QVERIFY(axis.min() <= 0.3 && axis.min() >= 0);
    const QStringList labels = axis.categoriesLabels();
    QVERIFY(labels.size() >= 3 && labels.size() <= 7);
    QVERIFY2(labels.contains(QStringLiteral("1")) && labels.contains(QStringLiteral("2")),
             qPrintable(labels.join(QLatin1Char(' '))));

    // Accuracy stays within [0, 1] however close to 1 it gets.
    axis.setBounds(0, 1);
    axis.fit(0.8, 0.99, 0.05);
    QCOMPARE(axis.max(), 1.0);
    QVERIFY(axis.min() >= 0.7);

    // Epochs are labelled on whole numbers.
    ChartAxis epochs;
    epochs.setWholeNumberTicks(true);
    epochs.showPositions(0, 3.5);
    QCOMPARE(epochs.categoriesLabels(), (QStringList{"0", "1", "2", "3"}));
}

void TestUiCharts::logAxisLabelsRoundValues()
{
    ChartAxis axis;
    axis.setMaxTicks(6);
    axis.setLogScale(true);
    QCOMPARE(axis.position(100), 2.0);
    QVERIFY(std::isnan(axis.position(0)));
    // Less than a decade: 1, 2 and 5 steps, not a single "1".
    axis.fit(0.3, 2.4, 0.05);
    QCOMPARE(axis.categoriesLabels(), (QStringList{"0.5", "1", "2"}));
    // Drift over six decades: whole decades.
    axis.fit(1e-9, 1e-3, 0.05);
    const QStringList decades = axis.categoriesLabels();
    QVERIFY2(decades.contains(QStringLiteral("1e-6")) && decades.size() <= 6,
             qPrintable(decades.join(QLatin1Char(' '))));
}

void TestUiCharts::chartsOverEpochsShareOneXRange()
{
    ShownBoard shown;
    ChartBoard& board = shown.board;
    const dp::RunRecord run = finishedRun("run-1", 1, 4, 3);
    board.startRun(run, runColor(0));
    // Three epochs of eight batches' losses, at fractional epochs from 1/8 to 3.
    QList<LossSample> losses;
    for (int batch = 1; batch <= 24; ++batch)
        losses.append({batch / 8.0, batch * 0.25, 2.0 / batch});
    board.lossChart()->appendLosses(losses);
    board.refreshNow();

    const auto* accuracy = shown.chart<RunChartView>("accuracyChart");
    const auto* loss = shown.chart<RunChartView>("lossChart");
    const auto* seconds = shown.chart<RunChartView>("secondsChart");
    QVERIFY(accuracy && loss && seconds);
    for (const RunChartView* chart : {loss, seconds}) {
        QCOMPARE(axisOf(*chart, Qt::Horizontal)->min(), axisOf(*accuracy, Qt::Horizontal)->min());
        QCOMPARE(axisOf(*chart, Qt::Horizontal)->max(), axisOf(*accuracy, Qt::Horizontal)->max());
    }
    // The planned 4 epochs from the start, with half an epoch to spare.
    QCOMPARE(axisOf(*accuracy, Qt::Horizontal)->min(), 0.0);
    QCOMPARE(axisOf(*accuracy, Qt::Horizontal)->max(), 4.5);

    // In seconds too: the loss's last batch reaches furthest.
    board.setXAxisMode(XAxisMode::seconds);
    for (const RunChartView* chart : {loss, seconds}) {
        QCOMPARE(axisOf(*chart, Qt::Horizontal)->max(), axisOf(*accuracy, Qt::Horizontal)->max());
    }
    QVERIFY(axisOf(*accuracy, Qt::Horizontal)->max() >= 6.0);
    QVERIFY(axisOf(*accuracy, Qt::Horizontal)->max() <= 7.0);
}

void TestUiCharts::aOneEpochRunShowsItsPointWithAMarker()
{
    ShownBoard shown;
    const dp::RunRecord run = finishedRun("one-epoch", 1, 1, 1);
    const QColor colour = runColor(3);
    shown.board.setRunVisible(run, colour, true);
    auto* accuracy = shown.chart<EpochMetricChart>("accuracyChart");
    const QLineSeries* line = accuracy->lineOf(run.id, 0);
    QVERIFY(line);
    QCOMPARE(line->count(), 1);
    QVERIFY(!line->lightMarker().isNull());
    // Inside the plot, not on its edge, and drawn: the pixel there is the run's.
    const QPoint at = drawnAt(*accuracy, *line, line->at(0));
    const QRect plot = accuracy->mapFromScene(accuracy->chart()->mapRectToScene(accuracy->chart()->plotArea()))
                               .boundingRect();
    QVERIFY(plot.adjusted(8, 8, -8, -8).contains(at));
    QTest::qWait(50);  // the axes lay out anew
    const QImage picture = accuracy->grab().toImage();
    QColor drawn;  // the closest to the run's colour of the pixels round the point
    for (int dx = -1; dx <= 1; ++dx) {
        for (int dy = -1; dy <= 1; ++dy) {
            const QColor pixel = picture.pixelColor((at + QPoint(dx, dy)) * accuracy->devicePixelRatioF());
            if (!drawn.isValid() || colourDifference(pixel, colour) < colourDifference(drawn, colour))
                drawn = pixel;
        }
    }
    QVERIFY2(colourDifference(drawn, colour) < 5,
             qPrintable(QStringLiteral("%1 drawn, %2 expected").arg(drawn.name(), colour.name())));
}

void TestUiCharts::accuracyShowsTrainDashedInTheRunColour()
{
    ShownBoard shown;
    const dp::RunRecord run = finishedRun("run-1", 2, 3, 3);
    shown.board.setRunVisible(run, runColor(1), true);
    auto* accuracy = shown.chart<EpochMetricChart>("accuracyChart");
    const QLineSeries* test = accuracy->lineOf(run.id, 0);
    const QLineSeries* train = accuracy->lineOf(run.id, 1);
    QVERIFY(test && train);
    QCOMPARE(accuracy->runCount(), 1);
    QCOMPARE(train->count(), 3);
    QCOMPARE(train->at(2).y(), run.epochs[2].train_acc);
    QCOMPARE(test->at(2).y(), run.epochs[2].test_acc);
    QCOMPARE(train->pen().style(), Qt::DashLine);
    QCOMPARE(test->pen().style(), Qt::SolidLine);
    QCOMPARE(train->pen().color(), runColor(1));
    // y spans [0, 1] (issue 30: fitted to the accuracies, chance-level noise
    // from 0.105 to 0.110 filled the plot as a steep climb).
    QCOMPARE(axisOf(*accuracy, Qt::Vertical)->min(), 0.0);
    QCOMPARE(axisOf(*accuracy, Qt::Vertical)->max(), 1.0);
    // Seconds per epoch start at 0.
    QCOMPARE(axisOf(*shown.chart<EpochMetricChart>("secondsChart"), Qt::Vertical)->min(), 0.0);
}

void TestUiCharts::legendNamesEveryRunInFull()
{
    ShownBoard shown;
    for (int i = 0; i < 12; ++i) {
        dp::RunRecord run = finishedRun("run-" + std::to_string(10 + i), 1 + i % 4, 5, 5);
        run.config.batch_size = 64 << (i % 3);
        shown.board.setRunVisible(run, runColor(i), true);
    }
    auto* legend = shown.board.findChild<RunLegend*>(QStringLiteral("runLegend"));
    QVERIFY(legend && legend->isVisible());
    QCOMPARE(int(legend->entries().size()), 12);
    const QString text = legend->text();
    for (const RunLegend::Entry& entry : legend->entries()) {
        QVERIFY(text.contains(entry.name.toHtmlEscaped()));
        QVERIFY(!entry.name.contains(QStringLiteral("...")));
    }
    QVERIFY(legend->height() < shown.board.height() / 4);  // wrapped, not squeezed
    // Unchecked runs leave it.
    shown.board.setRunVisible(finishedRun("run-10", 1, 5, 5), runColor(0), false);
    QCOMPARE(int(legend->entries().size()), 11);
}

void TestUiCharts::hoverReadsOutEveryRunAtTheMouseX()
{
    ShownBoard shown;
    const dp::RunRecord first = finishedRun("run-1", 2, 3, 3);
    dp::RunRecord second = finishedRun("run-2", 1, 3, 3);
    for (dp::EpochMetrics& epoch : second.epochs) {
        epoch.test_acc += 0.2;
        epoch.train_acc -= 0.2;
    }
    shown.board.setRunVisible(first, runColor(0), true);
    shown.board.setRunVisible(second, runColor(1), true);
    auto* accuracy = shown.chart<EpochMetricChart>("accuracyChart");
    const QLineSeries* test = accuracy->lineOf(first.id, 0);
    const QPoint point = drawnAt(*accuracy, *test, test->at(1));
    const QRect plot = accuracy->mapFromScene(accuracy->chart()->mapRectToScene(accuracy->chart()->plotArea()))
                               .boundingRect();

    // At epoch 2's x, near the plot's top, far above every point: each of
    // the four lines' epoch-2 value, highest first.
    QTest::mouseMove(accuracy->viewport(), QPoint(point.x() + 3, plot.top() + 4));
    const QStringList lines = accuracy->shownReadout().split(QLatin1Char('\n'));
    const QString name1 = QString::fromStdString(first.label());
    const QString name2 = QString::fromStdString(second.label());
    QCOMPARE(lines, (QStringList{QStringLiteral("epoch 2"), name2 + QStringLiteral(": test acc 0.81"),
                                 name1 + QStringLiteral(": train acc 0.66"), name1 + QStringLiteral(": test acc 0.61"),
                                 name2 + QStringLiteral(": train acc 0.46")}));
    QCOMPARE(accuracy->readoutAt(QPoint(point.x() + 3, plot.top() + 4)), lines.join(QLatin1Char('\n')));
    // Presenter mode enlarges it with the rest of the chart's text.
    const auto readoutItem = [&]() -> const ChartReadout* {
        for (QGraphicsItem* item : accuracy->scene()->items())
            if (const auto* readout = dynamic_cast<const ChartReadout*>(item))
                return readout;
        return nullptr;
    };
    QVERIFY(readoutItem());
    const double normalHeight = readoutItem()->box().height();
    accuracy->setFontScale(2);
    QCoreApplication::processEvents();  // the plot shrinks under the larger title
    const QRect enlargedPlot =
            accuracy->mapFromScene(accuracy->chart()->mapRectToScene(accuracy->chart()->plotArea())).boundingRect();
    const QPoint enlargedPoint = drawnAt(*accuracy, *test, test->at(1));
    QTest::mouseMove(accuracy->viewport(), QPoint(enlargedPoint.x() + 2, enlargedPlot.top() + 4));
    QCOMPARE(accuracy->shownReadout(), lines.join(QLatin1Char('\n')));
    QVERIFY2(readoutItem()->box().height() > 1.5 * normalHeight,
             qPrintable(QStringLiteral("%1 vs %2").arg(readoutItem()->box().height()).arg(normalHeight)));
    // Within the plot however narrow: run names give way, values stay.
    QVERIFY(accuracy->chart()->mapRectToScene(accuracy->chart()->plotArea()).adjusted(-1, -1, 1, 1)
                    .contains(readoutItem()->box()));
    accuracy->setFontScale(1);
    // A run hidden from the legend leaves the readout.
    accuracy->setRunHidden(QString::fromStdString(second.id), true);
    QVERIFY(!accuracy->readoutAt(QPoint(point.x(), plot.top() + 4)).contains(name2));
    // At x 0, an epoch from the first points: nothing.
    QVERIFY(accuracy->readoutAt(QPoint(plot.left() + 2, point.y())).isEmpty());
    // Outside the plot: nothing.
    QVERIFY(accuracy->readoutAt(QPoint(point.x(), plot.bottom() + 10)).isEmpty());
}

void TestUiCharts::dragAndWheelZoomAndDoubleClickResets()
{
    ShownBoard shown;
    const dp::RunRecord run = finishedRun("run-1", 1, 10, 10);
    shown.board.setRunVisible(run, runColor(0), true);
    auto* seconds = shown.chart<RunChartView>("secondsChart");
    QValueAxis* x = axisOf(*seconds, Qt::Horizontal);
    const double fullMax = x->max();
    const QRect plot = seconds->mapFromScene(seconds->chart()->mapRectToScene(seconds->chart()->plotArea()))
                               .boundingRect();

    // A rectangle over the left half of the plot.
    QWidget* viewport = seconds->viewport();
    QTest::mousePress(viewport, Qt::LeftButton, {}, plot.topLeft() + QPoint(5, 5));
    QTest::mouseMove(viewport, plot.center());
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, plot.center());
    QVERIFY(seconds->isZoomed());
    QVERIFY2(x->max() < fullMax * 0.6, qPrintable(QString::number(x->max())));
    auto* reset = shown.board.findChild<QPushButton*>(QStringLiteral("resetZoomButton"));
    QVERIFY(reset && reset->isVisible());
    // New epochs leave a zoomed view where the user put it.
    const double zoomedMax = x->max();
    dp::RunRecord longer = finishedRun("run-1", 1, 20, 20);
    shown.board.updateRun(longer, runColor(0));
    QCOMPARE(x->max(), zoomedMax);

    QTest::mouseDClick(viewport, Qt::LeftButton, {}, plot.center());
    QVERIFY(!seconds->isZoomed());
    QCOMPARE(x->max(), 20.5);
    QVERIFY(!reset->isVisible());

    // The wheel alone scrolls the page and leaves the chart as it was.
    QWheelEvent scroll(QPointF(plot.center()), QPointF(seconds->mapToGlobal(plot.center())), QPoint(),
                       QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(viewport, &scroll);
    QVERIFY(!seconds->isZoomed());
    QCOMPARE(x->max(), 20.5);
    // Ctrl+wheel zooms in around the mouse; the button shows everything again.
    QWheelEvent wheel(QPointF(plot.center()), QPointF(seconds->mapToGlobal(plot.center())), QPoint(),
                      QPoint(0, 240), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(viewport, &wheel);
    QVERIFY(seconds->isZoomed());
    QVERIFY(x->max() - x->min() < 20.5 * 0.8);
    QTest::mouseClick(reset, Qt::LeftButton);
    QVERIFY(!seconds->isZoomed());
    QCOMPARE(x->max(), 20.5);
}

// Issue 31: the README says the charts over epochs share one x range; they did not while zoomed.
void TestUiCharts::zoomingOneChartZoomsTheOthersOverEpochs()
{
    ShownBoard shown;
    const dp::RunRecord run = finishedRun("run-1", 1, 10, 10);
    shown.board.setRunVisible(run, runColor(0), true);
    auto* accuracy = shown.chart<RunChartView>("accuracyChart");
    const std::vector<RunChartView*> linked{shown.chart<RunChartView>("secondsChart"), shown.board.lossChart(),
                                            shown.chart<RunChartView>("driftChart")};
    auto* speedup = shown.chart<RunChartView>("speedupChart");
    const double speedupMax = axisOf(*speedup, Qt::Horizontal)->max();
    QValueAxis* x = axisOf(*accuracy, Qt::Horizontal);
    const double fullMax = x->max();
    const QRect plot = accuracy->mapFromScene(accuracy->chart()->mapRectToScene(accuracy->chart()->plotArea()))
                               .boundingRect();

    QWheelEvent wheel(QPointF(plot.center()), QPointF(accuracy->mapToGlobal(plot.center())), QPoint(),
                      QPoint(0, 480), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(accuracy->viewport(), &wheel);
    QVERIFY(x->max() - x->min() < fullMax * 0.7);
    for (RunChartView* chart : linked) {
        QVERIFY2(chart->isZoomed(), qPrintable(chart->objectName()));
        QCOMPARE(axisOf(*chart, Qt::Horizontal)->min(), x->min());
        QCOMPARE(axisOf(*chart, Qt::Horizontal)->max(), x->max());
    }
    // The speedup's x is devices, not epochs.
    QVERIFY(!speedup->isZoomed());
    QCOMPARE(axisOf(*speedup, Qt::Horizontal)->max(), speedupMax);

    // A double-click on one resets them all.
    RunChartView* seconds = linked.front();
    QWidget* viewport = seconds->viewport();
    const QRect secondsPlot = seconds->mapFromScene(seconds->chart()->mapRectToScene(seconds->chart()->plotArea()))
                                      .boundingRect();
    QTest::mouseDClick(viewport, Qt::LeftButton, {}, secondsPlot.center());
    QVERIFY(!accuracy->isZoomed());
    QCOMPARE(x->max(), fullMax);
    for (RunChartView* chart : linked) {
        QVERIFY(!chart->isZoomed());
        QCOMPARE(axisOf(*chart, Qt::Horizontal)->max(), fullMax);
    }
    auto* reset = shown.board.findChild<QPushButton*>(QStringLiteral("resetZoomButton"));
    QVERIFY(!reset->isVisible());

    // Panning another chart moves them all; the button resets them all.
    QTest::mousePress(viewport, Qt::RightButton, {}, secondsPlot.center());
    QTest::mouseMove(viewport, secondsPlot.center() - QPoint(40, 0));
    QTest::mouseRelease(viewport, Qt::RightButton, {}, secondsPlot.center() - QPoint(40, 0));
    QVERIFY(x->min() > 0);
    QCOMPARE(x->min(), axisOf(*seconds, Qt::Horizontal)->min());
    QCOMPARE(x->max(), axisOf(*seconds, Qt::Horizontal)->max());
    QVERIFY(accuracy->isZoomed());
    QTest::mouseClick(reset, Qt::LeftButton);
    for (RunChartView* chart : linked)
        QCOMPARE(axisOf(*chart, Qt::Horizontal)->max(), fullMax);
    QVERIFY(!accuracy->isZoomed());
}

// Issue 42: a run from the history or an import drew only a point per epoch;
// its record now keeps the per-batch loss, which comes back on every x axis,
// the test loss and accuracy at each epoch's end (epoch x steps per epoch on
// a steps axis), and a record from before has no place on a steps axis.
void TestUiCharts::aPastRunDrawsItsKeptBatchLossesOnEachXAxis()
{
    ShownBoard shown;
    dp::RunRecord run = finishedRun("past-1", 1, 2, 2);
    run.epochs[0].test_loss = 0.9;
    run.epochs[1].test_loss = 0.7;
    constexpr int kBatches = 30;  // per epoch
    for (int epoch = 1; epoch <= 2; ++epoch)
        for (int batch = 1; batch <= kBatches; ++batch)
            run.batch_losses.push_back(dp::batch_loss_point({epoch, batch, kBatches, 2.0 / batch}, epoch * 2.0));
    shown.board.setRunVisible(run, runColor(0), true);
    LossChart* loss = shown.board.lossChart();
    const QString key = QString::fromStdString(run.id);
    QCOMPARE(loss->lineOf(key)->count(), 2 * kBatches);  // per batch, not per epoch
    QCOMPARE(loss->lineOf(key)->points().front(), QPointF(1.0 / kBatches, 2.0));

    shown.board.setXAxisMode(XAxisMode::steps);
    QCOMPARE(loss->lineOf(key)->points().front().x(), 1.0);
    QCOMPARE(loss->lineOf(key)->points().back().x(), 2.0 * kBatches);
    const QList<QPointF> testLoss = loss->lineOf(LossChart::testLossKey(key))->points();
    QCOMPARE(testLoss, (QList<QPointF>{{double(kBatches), 0.9}, {2.0 * kBatches, 0.7}}));
    const QLineSeries* accuracy = nullptr;
    for (EpochMetricChart* chart : shown.board.findChildren<EpochMetricChart*>())
        if (const QLineSeries* line = chart->lineOf(run.id, 0); line && !accuracy)
            accuracy = line;
    QVERIFY(accuracy);
    QCOMPARE(accuracy->points().back().x(), 2.0 * kBatches);

    dp::RunRecord older = finishedRun("past-2", 1, 2, 2);  // no batch losses kept
    shown.board.setRunVisible(older, runColor(1), true);
    QCOMPARE(loss->lineOf(QStringLiteral("past-2"))->count(), 0);
    shown.board.setXAxisMode(XAxisMode::epochs);
    QCOMPARE(loss->lineOf(QStringLiteral("past-2"))->count(), 2);  // a point per epoch
}

void TestUiCharts::smoothingStrengthRedrawsTheLossOverTheRawOne()
{
    ShownBoard shown;
    const dp::RunRecord run = finishedRun("run-1", 1, 2, 0);
    shown.board.startRun(run, runColor(0));
    QList<LossSample> losses;
    for (int batch = 1; batch <= 40; ++batch)
        losses.append({batch / 20.0, batch * 0.1, 2.0 / batch + (batch % 2 == 0 ? 0.3 : 0.0)});
    shown.board.lossChart()->appendLosses(losses);
    shown.board.refreshNow();
    LossChart* loss = shown.board.lossChart();
    const QString key = QString::fromStdString(run.id);
    const QLineSeries* line = loss->lineOf(key);
    const QLineSeries* raw = loss->lineOf(LossChart::rawLossKey(key));
    QVERIFY(line && raw);
    const QList<QPointF> rawPoints = line->points();
    QCOMPARE(raw->count(), 0);  // not smoothed: one line
    auto* strength = shown.board.findChild<QDoubleSpinBox*>(QStringLiteral("smoothingStrength"));
    QVERIFY(strength && !strength->isVisible());

    shown.board.setSmoothedLoss(true);
    QVERIFY(strength->isVisible());
    QCOMPARE(strength->value(), LossChart::kDefaultSmoothingStrength);
    QCOMPARE(raw->points(), rawPoints);  // the raw loss stays, faint, behind
    QVERIFY(raw->pen().color().alphaF() < 0.5);
    QVERIFY(raw->pen().widthF() < line->pen().widthF());
    const QList<QPointF> strong = line->points();
    QVERIFY(strong != rawPoints);

    strength->setValue(0.3);
    const QList<QPointF> light = line->points();
    QVERIFY(light != strong);
    QCOMPARE(raw->points(), rawPoints);
    // Lighter smoothing stays closer to the raw loss.
    double strongOff = 0, lightOff = 0;
    for (qsizetype i = 0; i < rawPoints.size(); ++i) {
        strongOff += std::abs(strong[i].y() - rawPoints[i].y());
        lightOff += std::abs(light[i].y() - rawPoints[i].y());
    }
    QVERIFY2(lightOff < strongOff, qPrintable(QStringLiteral("%1 vs %2").arg(lightOff).arg(strongOff)));
    // Remembered: a new board starts with it.
    QCOMPARE(QSettings().value(ChartBoard::kSmoothingStrengthKey).toDouble(), 0.3);
    ChartBoard next;
    QCOMPARE(next.findChild<QDoubleSpinBox*>(QStringLiteral("smoothingStrength"))->value(), 0.3);
    QCOMPARE(next.lossChart()->smoothingStrength(), 0.3);

    shown.board.setSmoothedLoss(false);
    QCOMPARE(line->points(), rawPoints);
    QCOMPARE(raw->count(), 0);
    QVERIFY(!strength->isVisible());
    QSettings().remove(ChartBoard::kSmoothingStrengthKey);
}

// Issue 31: the accuracy key hid test-accuracy points; the empty speedup
// chart's key ran into the gap chart at 1024 px.
void TestUiCharts::styleKeysSitAboveThePlot()
{
    ShownBoard shown;
    dp::RunRecord run = finishedRun("run-1", 1, 3, 3);
    shown.board.setRunVisible(run, runColor(0), true);
    for (const char* name : {"accuracyChart", "lossChart", "speedupChart"}) {
        const auto* chart = shown.chart<RunChartView>(name);
        const ChartKey* key = chart->styleKey();
        QVERIFY2(key->isVisible(), name);
        const QRectF keyRect = key->sceneBoundingRect();
        const QRectF plot = chart->chart()->mapRectToScene(chart->chart()->plotArea());
        QVERIFY2(keyRect.bottom() <= plot.top(), name);
        QVERIFY2(chart->chart()->sceneBoundingRect().contains(keyRect), name);
    }
    // Not over any accuracy point, whatever the accuracy.
    auto* accuracy = shown.chart<EpochMetricChart>("accuracyChart");
    const QRectF keyRect = accuracy->styleKey()->sceneBoundingRect();
    for (int line = 0; line < 2; ++line) {
        const QLineSeries* series = accuracy->lineOf(run.id, line);
        for (const QPointF& point : series->points())
            QVERIFY(!keyRect.contains(accuracy->mapToScene(drawnAt(*accuracy, *series, point))));
    }

    // The board beside the settings on a 1024-px screen, and narrower: the
    // empty speedup chart's key stays within its chart, elided at the end,
    // the whole text in its tooltip. (A board in a window of its own keeps
    // that window three charts wide; in a parent it reflows.)
    QWidget host;
    auto* board = new ChartBoard(&host);
    board->setRunVisible(run, runColor(0), true);
    host.resize(1024, 640);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    for (const int width : {1024 - 360, 2 * 300 + 2}) {
        board->setGeometry(0, 0, width, 640);
        QTRY_COMPARE(board->chartsPerRow(), 2);
        for (const char* name : {"accuracyChart", "lossChart", "secondsChart", "speedupChart"}) {
            const auto* chart = board->findChild<RunChartView*>(QLatin1String(name));
            const QRectF chartRect = chart->chart()->sceneBoundingRect();
            const QRectF keyRect = chart->styleKey()->sceneBoundingRect();
            QVERIFY2(!chart->styleKey()->isVisible() || chartRect.contains(keyRect),
                     qPrintable(QStringLiteral("%1 at %2").arg(QLatin1String(name)).arg(width)));
        }
    }
    const ChartKey* speedupKey = board->findChild<RunChartView*>(QStringLiteral("speedupChart"))->styleKey();
    const QStringList whole = speedupKey->names();
    QVERIFY(speedupKey->shownNames() != whole);
    QVERIFY(speedupKey->shownNames().front().endsWith(QChar(0x2026)));  // elided at the end
    QCOMPARE(speedupKey->toolTip(), whole.join(QStringLiteral(" · ")));
}

void TestUiCharts::logScaleReplotsTheLoss()
{
    ShownBoard shown;
    const dp::RunRecord run = finishedRun("run-1", 1, 2, 0);
    shown.board.startRun(run, runColor(0));
    QList<LossSample> losses;
    for (int batch = 1; batch <= 16; ++batch)
        losses.append({batch / 8.0, batch * 0.25, 2.0 / batch});
    shown.board.lossChart()->appendLosses(losses);
    shown.board.refreshNow();
    LossChart* loss = shown.board.lossChart();
    const QLineSeries* line = loss->lineOf(QString::fromStdString(run.id));
    QCOMPARE(line->at(0).y(), 2.0);

    shown.board.setLogScaleLoss(true);
    QVERIFY(loss->isLogScaleY());
    QCOMPARE(line->at(0).y(), std::log10(2.0));
    auto* y = qobject_cast<QCategoryAxis*>(axisOf(*loss, Qt::Vertical));
    QVERIFY(y);
    const QStringList labels = y->categoriesLabels();
    QVERIFY2(labels.contains(QStringLiteral("0.2")) && labels.contains(QStringLiteral("1")),
             qPrintable(labels.join(QLatin1Char(' '))));
    // The readout names the loss, not its logarithm.
    QTest::mouseMove(loss->viewport(), drawnAt(*loss, *line, line->at(0)));
    QVERIFY2(loss->shownReadout().contains(QStringLiteral("loss 2")), qPrintable(loss->shownReadout()));

    shown.board.setLogScaleLoss(false);
    QVERIFY(!loss->isLogScaleY());
    QCOMPARE(line->at(0).y(), 2.0);
}

void TestUiCharts::exportsHaveOneSizeWhateverTheScreen()
{
    ShownBoard shown;
    shown.board.setRunVisible(finishedRun("run-1", 1, 3, 3), runColor(0), true);
    shown.board.resize(700, 450);  // charts far smaller than the pictures
    shown.board.setFontScale(1.6);  // and presenter mode on
    auto* accuracy = shown.chart<RunChartView>("accuracyChart");
    const QSizeF onScreen = accuracy->chart()->size();
    QTemporaryDir folder;
    QVERIFY(shown.board.exportTo(QDir(folder.path())).isEmpty());
    const QSize expected = ChartBoard::kExportSize * 2;
    for (const char* name : {"accuracy", "training_loss", "seconds_per_epoch", "speedup",
                             "speedup_gap"}) {
        const QImage png(folder.filePath(QLatin1String(name) + QStringLiteral(".png")));
        QCOMPARE(png.size(), expected);
        const QSvgRenderer svg(folder.filePath(QLatin1String(name) + QStringLiteral(".svg")));
        QVERIFY(svg.isValid());
        QCOMPARE(svg.viewBox().size(), ChartBoard::kExportSize);
    }
    // The screen is as it was.
    QCOMPARE(accuracy->chart()->size(), onScreen);

    // No drift measured: no empty drift chart in the export.
    QVERIFY(!QFile::exists(folder.filePath(QStringLiteral("parameter_drift.png"))));
    QVERIFY(!QFile::exists(folder.filePath(QStringLiteral("parameter_drift.svg"))));
    dp::RunRecord twoDevices = finishedRun("run-2", 2, 3, 3);
    for (dp::EpochMetrics& epoch : twoDevices.epochs)
        epoch.parameter_drift = 1e-7 * epoch.epoch;
    shown.board.setRunVisible(twoDevices, runColor(1), true);
    QVERIFY(shown.board.exportTo(QDir(folder.path())).isEmpty());
    QCOMPARE(QImage(folder.filePath(QStringLiteral("parameter_drift.png"))).size(), expected);
    QVERIFY(QSvgRenderer(folder.filePath(QStringLiteral("parameter_drift.svg"))).isValid());
}

// Issue 31: an exported accuracy chart had a stray "0.05" under its plot,
// and its title centred over the picture, legend included.
void TestUiCharts::exportedTextStaysBesideThePlot()
{
    ShownBoard shown;
    shown.board.setRunVisible(chanceLevelRun("chance"), runColor(0), true);
    shown.board.setRunVisible(finishedRun("learns", 1, 3, 3), runColor(1), true);
    // Small charts in presenter mode, laid out on screen: the screen's ticks
    // are not the export's.
    shown.board.resize(700, 450);
    shown.board.setFontScale(1.6);
    QTest::qWait(50);
    dp::RunRecord twoDevices = finishedRun("drift", 2, 3, 3);
    for (dp::EpochMetrics& epoch : twoDevices.epochs)
        epoch.parameter_drift = 1e-7 * epoch.epoch;
    shown.board.setRunVisible(twoDevices, runColor(2), true);
    QList<LossSample> losses;
    for (int batch = 1; batch <= 24; ++batch)
        losses.append({batch / 8.0, batch * 0.25, 2.0 / batch});
    shown.board.lossChart()->appendLosses(losses);
    shown.board.setSpeedupMeasurements({{QStringLiteral("lenet"), QStringLiteral("LeNet"), runColor(2), 1, 1.0},
                                        {QStringLiteral("lenet"), QStringLiteral("LeNet"), runColor(2), 2, 1.6}});
    QTemporaryDir folder;
    QVERIFY(shown.board.exportTo(QDir(folder.path())).isEmpty());
    const std::pair<const char*, const char*> charts[] = {{"accuracy", "accuracyChart"},
                                                          {"seconds_per_epoch", "secondsChart"},
                                                          {"training_loss", "lossChart"},
                                                          {"speedup", "speedupChart"},
                                                          {"parameter_drift", "driftChart"}};
    for (const auto& [name, objectName] : charts) {
        const auto* chart = shown.chart<RunChartView>(objectName);
        const QRectF plot = chart->exportedPlotArea();
        QVERIFY2(plot.width() > 300 && plot.height() > 250, name);
        const double line = QFontMetricsF(chart->font()).height();
        const std::vector<SvgText> texts =
                svgTexts(folder.filePath(QLatin1String(name) + QStringLiteral(".svg")));
        QVERIFY2(texts.size() >= 8, name);
        // The title, in pieces where a fallback font draws some of its characters.
        QFont titleFont = chart->font();
        titleFont.setBold(true);
        titleFont.setPointSizeF(titleFont.pointSizeF() * 1.1);
        double titleLeft = plot.right(), titleRight = plot.left();
        for (const SvgText& text : texts) {
            const QString where = QStringLiteral("%1: \"%2\" at %3, %4 (plot %5, %6 to %7, %8)")
                                          .arg(QLatin1String(name), text.text)
                                          .arg(text.at.x())
                                          .arg(text.at.y())
                                          .arg(plot.left())
                                          .arg(plot.top())
                                          .arg(plot.right())
                                          .arg(plot.bottom());
            const QStringList keyNames = chart->styleKey()->names();
            const bool key = text.at.y() < plot.top()                   // the style key, above the plot
                    && std::any_of(keyNames.begin(), keyNames.end(),
                                   [&](const QString& keyName) { return keyName.contains(text.text); });
            const bool title = text.at.y() < plot.top() && !key;          // above the plot
            const bool legend = text.at.x() > plot.right();               // the runs, right of it
            const bool yLabel = text.at.x() < plot.left() && text.at.y() > plot.top() - line
                    && text.at.y() < plot.bottom() + line;                // left of it
            const bool xLabel = text.at.y() > plot.bottom() && text.at.y() < plot.bottom() + 3 * line
                    && text.at.x() > plot.left() - 2 * line && text.at.x() < plot.right();  // under it
            QVERIFY2(key || title || legend || yLabel || xLabel, qPrintable(where));
            if (title) {
                titleLeft = std::min(titleLeft, text.at.x());
                titleRight = std::max(titleRight, text.at.x() + QFontMetricsF(titleFont).horizontalAdvance(text.text));
            }
        }
        // The accuracy's y labels are the picture's (0 to 1 by 0.2 at 450
        // pixels), not the small chart's on screen: a main window's export
        // once kept the screen's 0, 0.5, 1.
        if (name == QLatin1String("accuracy")) {
            QStringList yLabels;
            for (const SvgText& text : texts)
                if (text.at.x() < plot.left() && text.at.y() > plot.top() - line
                    && text.at.y() < plot.bottom() + line / 2)  // not the x axis' "0" under it
                    yLabels << text.text;
            QCOMPARE(yLabels, (QStringList{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
        }
        // The x axis is named, however short the chart on screen.
        const QString xTitle = chart == shown.chart<RunChartView>("speedupChart") ? QStringLiteral("devices")
                                                                                  : QStringLiteral("epoch");
        QVERIFY2(std::any_of(texts.begin(), texts.end(), [&](const SvgText& text) { return text.text == xTitle; }),
                 name);
        // Centred over the plot, not over the picture.
        QVERIFY2(titleLeft > plot.left() && titleRight < plot.right(), name);
        const double middle = (titleLeft + titleRight) / 2;
        QVERIFY2(std::abs(middle - plot.center().x()) < line,
                 qPrintable(QStringLiteral("%1: title's middle at %2, the plot's at %3")
                                    .arg(QLatin1String(name)).arg(middle).arg(plot.center().x())));
    }
}

// Issue 30: chance-level accuracy (0.105-0.110) filled the plot as if it climbed.
void TestUiCharts::accuracyAxisIsZeroToOneAtChanceLevel()
{
    ShownBoard shown;
    shown.board.setRunVisible(chanceLevelRun("chance"), runColor(0), true);
    auto* accuracy = shown.chart<RunChartView>("accuracyChart");
    QValueAxis* y = axisOf(*accuracy, Qt::Vertical);
    QCOMPARE(y->min(), 0.0);
    QCOMPARE(y->max(), 1.0);
    // The user still zooms in on it, and the reset gives 0-1 back.
    const QRect plot =
            accuracy->mapFromScene(accuracy->chart()->mapRectToScene(accuracy->chart()->plotArea()))
                    .boundingRect();
    QWheelEvent wheel(QPointF(plot.center()), QPointF(accuracy->mapToGlobal(plot.center())), QPoint(),
                      QPoint(0, 480), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(accuracy->viewport(), &wheel);
    QVERIFY(accuracy->isZoomed());
    QVERIFY2(y->max() - y->min() < 0.8, qPrintable(QString::number(y->max() - y->min())));
    shown.board.resetZoom();
    QVERIFY(!accuracy->isZoomed());
    QCOMPARE(y->min(), 0.0);
    QCOMPARE(y->max(), 1.0);
}

// Issue 30: 5.1 -> 4.4 s per epoch read as a collapse on an axis from 4.3,
// and the waterfall's axis started at 0.45-0.66 s in some comparisons.
void TestUiCharts::secondsAndGapAxesStartAtZero()
{
    ShownBoard shown;
    dp::RunRecord run = finishedRun("run-1", 1, 3, 3);
    run.epochs[0].seconds = 5.1;
    run.epochs[1].seconds = 4.4;
    run.epochs[2].seconds = 4.5;
    shown.board.setRunVisible(run, runColor(0), true);
    QValueAxis* seconds = axisOf(*shown.chart<RunChartView>("secondsChart"), Qt::Vertical);
    QCOMPARE(seconds->min(), 0.0);
    QVERIFY(seconds->max() >= 5.1 && seconds->max() <= 6);

    auto* waterfall = shown.chart<GapWaterfallChart>("gapWaterfallChart");
    for (const auto& [ideal, measured] : {std::pair{0.45, 0.66}, std::pair{5.0, 5.3}, std::pair{2.0, 1.9}}) {
        dp::SpeedupGap gap;
        gap.devices = 2;
        gap.ideal = ideal;
        gap.measured = measured;
        gap.parts = {{"all-reduce not hidden behind backward", "all-reduce", "try {bucket_mb}",
                      (measured - ideal) * 0.8},
                     {"data loading and host work", "data", "fewer steps", (measured - ideal) * 0.2}};
        shown.board.setSpeedupGap(gap, QStringLiteral("LeNet · 2× cpu"), runColor(1));
        const QString range = QStringLiteral("%1 to %2 s").arg(waterfall->axisMinimum()).arg(waterfall->axisMaximum());
        QVERIFY2(waterfall->axisMinimum() == 0, qPrintable(range));
        QVERIFY2(waterfall->axisMaximum() >= std::max(ideal, measured), qPrintable(range));
    }
}

// Issue 30: a 1-epoch run's axis had a tick at 0.5 epochs.
void TestUiCharts::epochTicksAreWholeNumbers()
{
    ChartAxis axis;
    axis.setWholeNumberTicks(true);
    axis.setMaxTicks(8);
    axis.showPositions(0, 1.5);
    QCOMPARE(axis.categoriesLabels(), (QStringList{"0", "1"}));

    for (const int epochs : {1, 2, 3, 12}) {
        ShownBoard shown;
        shown.board.setRunVisible(finishedRun("run", 1, epochs, epochs), runColor(0), true);
        for (const char* name : {"accuracyChart", "secondsChart", "lossChart"}) {
            auto* x = qobject_cast<QCategoryAxis*>(
                    axisOf(*shown.chart<RunChartView>(name), Qt::Horizontal));
            QVERIFY2(x && labelsAreWholeNumbers(*x),
                     qPrintable(QStringLiteral("%1 after %2 epochs: %3")
                                        .arg(QLatin1String(name))
                                        .arg(epochs)
                                        .arg(x ? x->categoriesLabels().join(QLatin1Char(' ')) : QString())));
        }
    }
}

namespace {

// How many of the picture's pixels are `color`, give or take antialiasing.
int pixelsOf(const QImage& image, const QColor& color)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            count += std::abs(pixel.red() - color.red()) + std::abs(pixel.green() - color.green())
                             + std::abs(pixel.blue() - color.blue())
                     < 12;
        }
    return count;
}

}  // namespace

void TestUiCharts::gapWaterfallWalksFromIdealToMeasured()
{
    ShownBoard shown;
    auto* waterfall = shown.chart<GapWaterfallChart>("gapWaterfallChart");
    QVERIFY(waterfall && waterfall->isVisible());
    // Beside the speedup chart, as wide as a chart.
    auto* speedup = shown.chart<SpeedupChart>("speedupChart");
    QVERIFY(std::abs(waterfall->geometry().top() - speedup->geometry().top()) <= 2);
    QVERIFY(waterfall->geometry().left() >= speedup->geometry().right());
    QVERIFY(waterfall->width() > 200 && waterfall->height() > 150);
    QVERIFY(!waterfall->hasGap());
    QVERIFY(waterfall->bars().empty());
    QVERIFY(waterfall->caption().isEmpty());
    QCOMPARE(GapWaterfallChart::emptyText(), QStringLiteral("Compare 1 vs N to see where the time goes"));
    const QColor measuredColor = runColor(1);
    QCOMPARE(pixelsOf(waterfall->grab().toImage(), measuredColor), 0);  // no bars drawn

    dp::SpeedupGap gap;
    gap.devices = 2;
    gap.ideal = 5;
    gap.measured = 6.5;
    gap.parts = {{"compute on smaller per-device batches", "compute", "try {batch_size}", 0.6},
                 {"all-reduce not hidden behind backward", "all-reduce", "try {bucket_mb}", 1.2},
                 {"data loading and host work", "data", "fewer steps", -0.4},
                 {"outside the measured steps", "outside steps", "the loop", 0.1}};
    shown.board.setSpeedupGap(gap, QStringLiteral("LeNet · 2× cpu"), measuredColor);
    QVERIFY(waterfall->hasGap());
    const std::vector<GapWaterfallChart::Bar>& bars = waterfall->bars();
    QCOMPARE(bars.size(), gap.parts.size() + 2);
    QCOMPARE(bars.front().kind, GapWaterfallChart::Bar::Kind::ideal);
    QCOMPARE(bars.front().bottom(), 0.0);
    QCOMPARE(bars.front().top(), 5.0);
    // Each part floats from where the one before ended: up when it costs
    // time, down when it saves some.
    for (std::size_t i = 1; i + 1 < bars.size(); ++i) {
        QCOMPARE(bars[i].kind, GapWaterfallChart::Bar::Kind::part);
        QCOMPARE(bars[i].start, bars[i - 1].end);
        QCOMPARE(bars[i].end - bars[i].start, gap.parts[i - 1].seconds);
        QCOMPARE(bars[i].label, QString::fromStdString(gap.parts[i - 1].short_name));
        // Issue 42: shares of the 1.9 s lost, the part that saved time none
        // (it read -27% of the gap, and the all-reduce 80%).
        QVERIFY(std::abs(bars[i].share - std::max(gap.parts[i - 1].seconds, 0.0) / 1.9) < 1e-12);
    }
    QVERIFY(bars[3].end < bars[3].start);  // the data part saved time
    QCOMPARE(bars[3].top(), 6.8);
    // The parts end at the measured time, where the last bar stands.
    QVERIFY(std::abs(bars[bars.size() - 2].end - 6.5) < 1e-12);
    QCOMPARE(bars.back().kind, GapWaterfallChart::Bar::Kind::measured);
    QCOMPARE(bars.back().top(), 6.5);
    QCOMPARE(bars.back().bottom(), 0.0);
    // The verdict is the caption, its settings named as the panel names them.
    QVERIFY2(waterfall->caption().startsWith(
                 QStringLiteral("all-reduce not hidden behind backward: 63% of the 1.90 s per epoch lost "
                                "(data loading and host work saved 0.40 s of it); try “")),
             qPrintable(waterfall->caption()));
    // Drawn: the measured bar in the run's colour.
    QVERIFY(pixelsOf(waterfall->grab().toImage(), measuredColor) > 100);

    QVERIFY(waterfall->hasGapToSplit());

    // Faster than ideal: no gap to take shares of.
    gap.measured = 4.5;
    gap.parts = {{"compute on smaller per-device batches", "compute", "try {batch_size}", -0.7},
                 {"all-reduce not hidden behind backward", "all-reduce", "try {bucket_mb}", 0.2}};
    shown.board.setSpeedupGap(gap, QStringLiteral("LeNet · 2× cpu"), measuredColor);
    QVERIFY(waterfall->hasGap() && !waterfall->hasGapToSplit());
    QCOMPARE(waterfall->bars().back().top(), 4.5);
    QVERIFY2(waterfall->caption().startsWith(QStringLiteral("no gap")), qPrintable(waterfall->caption()));
    // ... and what made it faster than ideal.
    QVERIFY2(waterfall->caption().contains(
                 QStringLiteral("compute on smaller per-device batches: 0.70 s per epoch less than ideal")),
             qPrintable(waterfall->caption()));

    shown.board.setSpeedupGap(std::nullopt);
    QVERIFY(!waterfall->hasGap());
    QVERIFY(waterfall->caption().isEmpty());
}

// Issue 42: the waterfall showed shares of 114% and -31%. The parts within
// the epochs' spread stand as one grey bar, a part that saved time has no
// share, and the shares of the others add up to 1.
void TestUiCharts::gapWaterfallDrawsNoiseGreyAndNoNegativeShares()
{
    ShownBoard shown;
    auto* waterfall = shown.chart<GapWaterfallChart>("gapWaterfallChart");
    const QColor grey(0x9e, 0x9e, 0x9e);
    dp::SpeedupGap gap;
    gap.devices = 2;
    gap.ideal = 5;
    gap.measured = 6.5;
    gap.noise = 0.2;
    gap.parts = {{"compute on smaller per-device batches", "compute", "try {batch_size}", -0.5},
                 {"all-reduce not hidden behind backward", "all-reduce", "try {bucket_mb}", 1.7},
                 {"data loading and host work", "data", "fewer steps", 0.1},
                 {"update (every device updates all weights)", "update", "a larger batch", 0.15},
                 {"outside the measured steps", "outside steps", "the loop", 0.05}};
    dp::separate_noise(gap);
    shown.board.setSpeedupGap(gap, QStringLiteral("LeNet · 2× cpu"), runColor(1));
    const std::vector<GapWaterfallChart::Bar>& bars = waterfall->bars();
    QCOMPARE(bars.size(), std::size_t(5));  // ideal, compute, all-reduce, within noise, measured
    const GapWaterfallChart::Bar& noise = bars[3];
    QVERIFY(noise.noise);
    QCOMPARE(noise.label, QStringLiteral("within noise"));
    QCOMPARE(noise.name, QStringLiteral("within noise: data, update, outside steps"));
    QVERIFY(std::abs(noise.seconds - 0.3) < 1e-12);
    QVERIFY(std::abs(noise.end - 6.5) < 1e-12);  // the parts still end at the measured time
    double shares = 0;
    for (const GapWaterfallChart::Bar& bar : bars) {
        QVERIFY(bar.share >= 0 && bar.share <= 1);
        shares += bar.share;
    }
    QVERIFY(std::abs(shares - 1) < 1e-12);
    QCOMPARE(bars[1].share, 0.0);                          // compute saved 0.5 s
    QVERIFY(std::abs(bars[2].share - 1.7 / 2.0) < 1e-12);  // of the 2.0 s lost, not 113% of the gap
    QVERIFY(pixelsOf(waterfall->grab().toImage(), grey) > 50);
    QVERIFY2(waterfall->caption().startsWith(QStringLiteral("all-reduce not hidden behind backward: 85% of the "
                                                            "2.00 s per epoch lost")),
             qPrintable(waterfall->caption()));

    // A gap within the noise says so, and takes no shares.
    gap.measured = 5.1;
    gap.parts = {{"all-reduce not hidden behind backward", "all-reduce", "try {bucket_mb}", 0.1}};
    dp::separate_noise(gap);
    shown.board.setSpeedupGap(gap, QStringLiteral("LeNet · 2× cpu"), runColor(1));
    QVERIFY(!waterfall->hasGapToSplit());
    QVERIFY(waterfall->bars()[1].noise && waterfall->bars()[1].share == 0);
    QVERIFY2(waterfall->caption().startsWith(QStringLiteral("within noise: 2 devices are about 2 times faster")),
             qPrintable(waterfall->caption()));
}

// Issue 42: each run records its devices' CPU shares (W&B's system
// metrics); the board draws the newest run's beside the legend, and says in
// words when a record is older than the shares.
void TestUiCharts::utilisationShowsEachDeviceOfTheNewestRun()
{
    ShownBoard shown;
    auto* view = shown.chart<DeviceUtilisationView>("deviceUtilisation");
    QVERIFY(view);
    QVERIFY(!view->isVisible());  // no run: nothing to say
    dp::RunRecord two = finishedRun("2026-11-29T08:00:00Z-1-1", 2, 3, 3);
    two.name = "two devices";
    two.epochs[0].device_cpu = {0.55, 0.50};
    two.epochs[1].device_cpu = {0.92, 0.61};
    two.epochs[2].device_cpu = {0.90, 0.60};
    const QColor color = runColor(2);
    shown.board.setRunVisible(two, color, true);
    QVERIFY(view->isVisible());
    QCOMPARE(view->runName(), QStringLiteral("two devices"));
    QVERIFY(view->toolTip().startsWith(QStringLiteral("two devices\n")));  // told by its colour, named here
    QVERIFY(view->note().isEmpty());
    QCOMPARE(view->devices().size(), std::size_t(2));
    QCOMPARE(view->devices()[0].name, QStringLiteral("cpu:0"));
    QCOMPARE(view->devices()[1].name, QStringLiteral("cpu:1"));
    QCOMPARE(view->devices()[0].shares, (std::vector<double>{0.55, 0.92, 0.90}));
    QCOMPARE(view->devices()[1].shares, (std::vector<double>{0.50, 0.61, 0.60}));
    // Drawn: the bars in the run's colour, beside the legend, no taller than three lines.
    QVERIFY(pixelsOf(view->grab().toImage(), color) > 50);
    QVERIFY(view->height() <= 3 * view->fontMetrics().height() + 8);
    auto* legend = shown.chart<QWidget>("runLegendScroll");
    QVERIFY(view->geometry().left() >= legend->geometry().right());

    // An older record, shown after it: no bars, no zeros, words.
    dp::RunRecord old = finishedRun("2026-11-29T09:00:00Z-1-1", 2, 2, 2);
    old.name = "older";
    shown.board.setRunVisible(old, runColor(3), true);
    QCOMPARE(view->runName(), QStringLiteral("older"));
    QVERIFY(view->devices().empty());
    QCOMPARE(view->note(), QStringLiteral("CPU per device: not in this older record"));
    QVERIFY(view->toolTip().startsWith(QStringLiteral("older\n")));
    QCOMPARE(pixelsOf(view->grab().toImage(), runColor(3)), 0);
    // A run that has not finished an epoch yet: when its shares come.
    const dp::RunRecord fresh = finishedRun("2026-11-29T10:00:00Z-1-1", 2, 2, 0);
    shown.board.setRunVisible(fresh, runColor(4), true);
    QCOMPARE(view->note(), QStringLiteral("CPU per device: after the first epoch"));
    shown.board.setRunVisible(fresh, runColor(4), false);
    // Taken off: the one before it again, then nothing.
    shown.board.setRunVisible(old, runColor(3), false);
    QCOMPARE(view->runName(), QStringLiteral("two devices"));
    shown.board.removeRun(two.id);
    QVERIFY(!view->isVisible());
}

// Issue 30: "the runs diverged" read, to a class, as a blown-up run. A
// drift of training's amplified rounding is worded as paths, saying whether
// the accuracies agree.
void TestUiCharts::driftIsWordedAsPathsNotDivergence()
{
    dp::RunRecord one = finishedRun("one", 1, 2, 2), two = finishedRun("two", 2, 2, 2);
    std::vector<RunComparison> comparisons(2);
    comparisons[0].finalTestAcc = 0.790;
    const auto summary = [&](double drift, double accuracy) {
        two.epochs.back().parameter_drift = drift;
        comparisons[1].finalTestAcc = accuracy;
        return ComparisonSummaryCard::summaryText({one, two}, comparisons);
    };
    QVERIFY(summary(2e-6, 0.790).contains("by 2e-06 (relative): float rounding only."));
    // Worded by its size: 2% is slight, 10% is not, 66% is far apart (it was "slightly").
    const QString slight = summary(0.02, 0.791);
    QVERIFY2(slight.contains("by 0.02 (relative): the runs took slightly different paths (float rounding, "
                             "amplified by training); their test accuracies agree.")
                 && !slight.contains("diverged"),
             qPrintable(slight));
    QVERIFY(summary(0.1, 0.791).contains("by 0.1 (relative): the runs took different paths"));
    const QString far = summary(0.66, 0.791);
    QVERIFY2(far.contains("by 0.66 (relative): the runs ended far apart") && !far.contains("slightly"),
             qPrintable(far));
    QVERIFY(summary(0.3, 0.75).contains("their test accuracies differ by 0.040."));
}

// Issue 30: a speedup says whether it is strong or weak scaling, and a run
// measured while other processes took cores is flagged, not trusted.
void TestUiCharts::busyAndScalingAreSaidOnTheCard()
{
    dp::RunRecord one = finishedRun("one", 1, 2, 2), two = finishedRun("two", 2, 2, 2);
    std::vector<RunComparison> comparisons(2);
    comparisons[1].speedup = 1.9;
    comparisons[1].efficiency = 0.95;
    comparisons[1].scaling = MeasuredScaling::weak;
    QString text = ComparisonSummaryCard::summaryText({one, two}, comparisons);
    QVERIFY2(text.contains("<b>1.90× faster</b> per epoch, 95% scaling efficiency (weak scaling: "
                           "batch and lr grew with the devices"),
             qPrintable(text));
    // The verdict word follows the range: one that holds 1× is no measurable
    // difference, whichever side the median is on (issue 42: "0.92x (slower)"
    // with a range of 0.89-1.24).
    comparisons[1].speedup = 0.92;
    comparisons[1].speedupRange = RepeatRange{0.92, 0.89, 1.24};
    text = ComparisonSummaryCard::summaryText({one, two}, comparisons);
    QVERIFY2(text.contains("<b>no measurable difference</b> per epoch (0.92×, 0.89–1.24 from the steady "
                           "epochs: the range holds 1×)")
                 && !text.contains("slower"),
             qPrintable(text));
    QVERIFY2(ComparisonSummaryCard::verdictText({one, two}, comparisons)
                 .contains("no measurable difference on 2 devices (0.92×, 0.89–1.24"),
             qPrintable(ComparisonSummaryCard::verdictText({one, two}, comparisons)));
    comparisons[1].speedupRange = RepeatRange{0.92, 0.85, 0.95};
    QVERIFY2(ComparisonSummaryCard::verdictText({one, two}, comparisons)
                 .contains("slower: 0.92× 1 device's speed on 2 devices (0.85–0.95 from the steady epochs)"),
             qPrintable(ComparisonSummaryCard::verdictText({one, two}, comparisons)));
    // One steady epoch a run: no range, so no verdict from the two epochs.
    comparisons[1].speedup = 1.9;
    comparisons[1].speedupRange = RepeatRange{1.9, std::nan(""), std::nan("")};
    const QString unranged = ComparisonSummaryCard::verdictText({one, two}, comparisons);
    QVERIFY2(unranged.contains("too few epochs to tell on 2 devices (1.90×, one steady epoch a run: no spread")
                 && !unranged.contains("faster") && !unranged.contains("nan"),
             qPrintable(unranged));
    comparisons[1].speedupRange.reset();
    QVERIFY(!text.contains("busy"));
    comparisons[1].scaling = MeasuredScaling::strong;
    two.busy = true;
    text = ComparisonSummaryCard::summaryText({one, two}, comparisons);
    QVERIFY(text.contains("(strong scaling: the same global batch)."));
    QVERIFY2(text.contains("Measured while the machine was busy"), qPrintable(text));
}


// Issue 31: batch_split.png came out 622x142, as small as on screen.
void TestUiCharts::stepViewAndScalingChartExportAtThePictureSize()
{
    // Each in a page's layout, as in the window: the layout keeps its size on screen.
    QWidget page;
    auto* layout = new QVBoxLayout(&page);
    auto* splitView = new BatchSplitView;
    auto* scalingChart = new ScalingPredictionChart;
    layout->addWidget(splitView);
    layout->addWidget(scalingChart);
    page.resize(622, 460);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    BatchSplitView& split = *splitView;
    split.startRun(64, 2);
    dp::StepReport step{.epoch = 1, .batch = 1, .devices = {}};
    for (const int shard : {32, 32})
        step.devices.push_back({shard, 0.0001, 0.004, 0.008, 0.004, 0.0005});
    split.showStep(step);
    ScalingPredictionChart& scaling = *scalingChart;
    scaling.setPrediction({{1, 1}, {2, 1.8}, {4, 3.1}, {8, 4.6}}, QStringLiteral("LeNet"));
    QTest::qWait(20);
    QTemporaryDir folder;
    for (QWidget* widget : std::initializer_list<QWidget*>{&split, &scaling}) {
        const QSize onScreen = widget->size();
        const QString name = QLatin1String(widget->metaObject()->className());
        QVERIFY(exportWidget(*widget, QDir(folder.path()), name).isEmpty());
        const QImage png(folder.filePath(name + QStringLiteral(".png")));
        QCOMPARE(png.size(), QSize(1600, 900));
        // Drawn across the picture, not in a corner of it at its size on
        // screen: something on the white in its right fifth.
        const QImage rightFifth = png.copy(1280, 0, 320, 900).convertToFormat(QImage::Format_RGB32);
        bool drawn = false;
        for (int y = 0; y < rightFifth.height() && !drawn; y += 2)
            for (int x = 0; x < rightFifth.width() && !drawn; x += 2)
                drawn = rightFifth.pixel(x, y) != qRgb(255, 255, 255);
        QVERIFY2(drawn, widget->metaObject()->className());
        const QSvgRenderer svg(folder.filePath(name + QStringLiteral(".svg")));
        QVERIFY(svg.isValid());
        QCOMPARE(svg.viewBox().size(), QSize(800, 450));
        QCOMPARE(widget->size(), onScreen);  // the screen is as it was
    }
}

// A study file (dp-train --sweep devices=1,2 batch-size=64,256 --repeat 2)
// opened in the workbench: one table row per grid point, and the heat map's
// cells hold each point's scaling efficiency; the table exports as CSV.
void TestUiCharts::studyOpensAsTableAndEfficiencyHeatMap()
{
    // Steady epochs of 2 s on 1 device; on 2, 1.6 s at batch 64 (efficiency
    // 62.5%) and 1 s at batch 256 (100%).
    std::vector<dp::RunRecord> runs;
    for (int repeat = 0; repeat < 2; ++repeat)
        for (const int batch : {64, 256})
            for (const int devices : {1, 2}) {
                dp::TrainConfig config;
                config.batch_size = batch;
                config.epochs = 2;
                config.devices = devices == 1 ? std::vector<std::string>{"cpu:0"}
                                              : std::vector<std::string>{"cpu:0", "cpu:1"};
                dp::RunRecord record = dp::start_run_record(config, "dp-train");
                record.status = dp::RunStatus::finished;
                const double seconds = devices == 1 ? 2.0 : batch == 64 ? 1.6 : 1.0;
                record.epochs = {{1, 0.9, 0.6, 0.7, seconds * 1.5}, {2, 0.5, 0.8, 0.8, seconds}};
                runs.push_back(record);
            }
    QTemporaryDir dir;
    const QString path = dir.filePath("study.json");
    dp::write_study(path.toStdString(), {dp::StudyKind::sweep, "devices=1,2 batch-size=64,256", 2, runs});
    QVERIFY(dp::is_study_file(path.toStdString()));

    QWidget parent;
    QString problem;
    StudyWindow* window = openStudyWindow(path, &parent, &problem);
    QVERIFY2(window, qPrintable(problem));
    const StudyTableModel* model = window->tableModel();
    QCOMPARE(model->rowCount(), 4);
    const QList<QPair<int, int>> points{{1, 64}, {2, 64}, {1, 256}, {2, 256}};
    for (int row = 0; row < 4; ++row) {
        QCOMPARE(model->index(row, StudyTableModel::Devices).data().toInt(), points[row].first);
        QCOMPARE(model->index(row, StudyTableModel::BatchSize).data().toInt(), points[row].second);
    }
    QCOMPARE(model->index(1, StudyTableModel::Efficiency).data().toString(), QString("63%"));
    QCOMPARE(model->index(1, StudyTableModel::Speedup).data().toString(), QString("1.25× (1.25–1.25)"));
    QCOMPARE(model->index(0, StudyTableModel::Speedup).data().toString(), QString("baseline"));

    EfficiencyHeatMap* map = window->heatMap();
    QCOMPARE(map->deviceCounts(), (QList<int>{1, 2}));
    QCOMPARE(map->batchSizes(), (QList<int>{64, 256}));
    QCOMPARE(*map->efficiencyAt(1, 64), 1.0);
    QCOMPARE(*map->efficiencyAt(2, 64), 0.625);
    QCOMPARE(*map->efficiencyAt(2, 256), 1.0);
    QVERIFY(!map->efficiencyAt(4, 64));
    // The cells are drawn in their colours: 62.5% is less green than 100%.
    QVERIFY(QTest::qWaitForWindowExposed(window));
    const QImage image = map->grab().toImage();
    const auto cellColour = [&](int column, int row) {
        // The middle of a cell, left of its centred percentage.
        const int left = map->fontMetrics().horizontalAdvance(QStringLiteral("batch 000000"))
                         + map->fontMetrics().height();
        const int line = map->fontMetrics().height();
        const double width = double(map->width() - left - line) / 2, height = double(map->height() - 5 * line) / 2;
        return image.pixelColor(QPointF(left + (column + 0.15) * width, 2 * line + (row + 0.5) * height).toPoint()
                                * image.devicePixelRatio());
    };
    QVERIFY2(cellColour(1, 1).hueF() > cellColour(1, 0).hueF() + 0.05,
             qPrintable(cellColour(1, 1).name() + " vs " + cellColour(1, 0).name()));

    const QString csv = dir.filePath("table.csv");
    QVERIFY(window->exportCsv(csv, &problem));
    QFile written(csv);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll().toStdString(), dp::study_table_csv(dp::read_study(path.toStdString()).table()));

    // A run record is not a study: said in one line, no window.
    const QString record = dir.filePath("run.json");
    dp::write_run_record(record.toStdString(), runs.front());
    QVERIFY(!dp::is_study_file(record.toStdString()));
    QVERIFY(!openStudyWindow(record, &parent, &problem));
    QVERIFY2(problem.contains("not a valid study: \"format\" is not \"dp-train study\""), qPrintable(problem));
}

// Run ▸ Sweep…: prefilled from the panel's settings and checked devices; an
// edit the engine refuses disables OK and shows the engine's one line, with
// settings named in the panel's words.
void TestUiCharts::sweepDialogChecksEveryEditThroughTheEngine()
{
    QCOMPARE(defaultDeviceCounts(6), QString("1,2,4,6"));
    QCOMPARE(defaultDeviceCounts(8), QString("1,2,4,8"));
    QCOMPARE(defaultDeviceCounts(1), QString("1"));
    QCOMPARE(defaultDeviceCounts(0), QString());

    SweepDialog dialog(sweepBase(), cpuDevices(2));
    auto* counts = dialog.findChild<QLineEdit*>("sweepDeviceCounts");
    auto* batches = dialog.findChild<QLineEdit*>("sweepBatchSizes");
    auto* lrs = dialog.findChild<QLineEdit*>("sweepLearningRates");
    auto* repeats = dialog.findChild<QSpinBox*>("sweepRepeats");
    QPushButton* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(counts && batches && lrs && repeats && ok);
    QCOMPARE(counts->text(), QString("1,2"));
    QCOMPARE(batches->text(), QString("64,256"));
    QCOMPARE(lrs->text(), QString("0.1"));
    QCOMPARE(repeats->value(), 1);
    QCOMPARE(repeats->maximum(), 10);
    QVERIFY(dialog.isValid() && ok->isEnabled());
    // 2 epochs run once: one steady epoch a run, no range for any speedup (said before the runs).
    QCOMPARE(dialog.status(), QString("4 points × 1 repeat = 4 runs\nSpeedups will have no range: train 3 or "
                                      "more epochs, or repeat 2 or more times."));
    repeats->setValue(2);
    QCOMPARE(dialog.status(), QString("4 points × 2 repeats = 8 runs"));
    repeats->setValue(1);

    const auto refused = [&](QLineEdit* field, const QString& text, const QString& message) {
        field->setText(text);
        if (dialog.isValid() || ok->isEnabled() || !dialog.status().contains(message))
            return QStringLiteral("'%1' gave \"%2\"").arg(text, dialog.status());
        return QString();
    };
    QString problem = refused(counts, "", "an empty value; list the values separated by commas");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    problem = refused(counts, "0", "0 is not above 0");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    problem = refused(counts, "1,2,", "an empty value");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    counts->setText("1,2");
    problem = refused(batches, "64,x", "'x' is not a whole number");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // In the dialog's words: its field, not dp-train's flag.
    QVERIFY2(dialog.status().startsWith("Batch sizes: 'x' is not a whole number") && !dialog.status().contains("--"),
             qPrintable(dialog.status()));
    batches->setText("64");
    problem = refused(lrs, "0.1,0.1", "lists 0.1 twice");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    lrs->setText("0.1");
    // More devices than the panel has checked: the fix names the panel's setting, not the flag.
    problem = refused(counts, "1,4", "only 2 devices here");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY2(dialog.status().endsWith("or name more with “devices”") && dialog.status().startsWith("Device counts: only 2 devices here; list counts up to 2")
                 && !dialog.status().contains("--"),
             qPrintable(dialog.status()));
    // A point the run's own checks (validate) refuse.
    counts->setText("1,2");
    problem = refused(batches, "1", "batch size 1 is smaller than the 2 devices");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY2(!dialog.status().contains("--batch-size"), qPrintable(dialog.status()));

    // The text floor at 1024x768, with the error's lines shown: the dialog fits, nothing clipped.
    QVERIFY(dialog.sizeHint().width() <= 1024 && dialog.sizeHint().height() <= 768);
    dialog.resize(dialog.sizeHint());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QCOMPARE(text_floor::textProblems(dialog, 12), QStringList());

    batches->setText("64,256");
    QVERIFY(dialog.isValid() && ok->isEnabled());
    QCOMPARE(text_floor::textProblems(dialog, 12), QStringList());
}

// A good grid, typed with spaces: the run count, and the plan's points are
// the engine's sweep_points in order on the first N of the checked devices.
void TestUiCharts::sweepDialogPlansTheGridAsTyped()
{
    const dp::TrainConfig base = sweepBase();
    SweepDialog dialog(base, cpuDevices(4));
    QCOMPARE(dialog.findChild<QLineEdit*>("sweepDeviceCounts")->text(), QString("1,2,4"));
    dialog.findChild<QLineEdit*>("sweepDeviceCounts")->setText("1, 4");
    dialog.findChild<QLineEdit*>("sweepBatchSizes")->setText("32, 64");
    dialog.findChild<QLineEdit*>("sweepLearningRates")->setText("0.05,0.2");
    dialog.findChild<QSpinBox*>("sweepRepeats")->setValue(3);
    QVERIFY2(dialog.isValid(), qPrintable(dialog.status()));
    QCOMPARE(dialog.status(), QString("8 points × 3 repeats = 24 runs"));

    const dp::StudyPlan& plan = dialog.plan();
    QCOMPARE(plan.kind, dp::StudyKind::sweep);
    QCOMPARE(plan.repeats, 3);
    QCOMPARE(plan.runs().size(), std::size_t(24));
    QCOMPARE(dp::sweep_grid_text(plan.grid), std::string("devices=1,4 batch-size=32,64 lr=0.05,0.2"));
    const std::vector<dp::SweepPoint> points = dp::sweep_points(plan.grid, base, 4);
    QCOMPARE(plan.points.size(), points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        const dp::PlannedRun& run = plan.points[i];
        QCOMPARE(int(run.devices.size()), points[i].devices);
        QCOMPARE(run.devices.front().id, std::string("cpu:0"));
        QCOMPARE(run.config.batch_size, points[i].batch_size);
        QCOMPARE(run.config.lr, points[i].lr);
        QCOMPARE(run.config.model, base.model);
    }
}

// A study the workbench runs, followed as each run ends: the heading and the
// title say "k of M runs", the table and heat map grow, CSV exports at any time.
void TestUiCharts::runningStudyWindowFillsAsRunsEnd()
{
    const dp::StudyPlan plan = twoLrSweep();
    const std::vector<dp::PlannedRun> runs = plan.runs();
    QCOMPARE(runs.size(), std::size_t(8));
    StudyWindow window(plan);
    QVERIFY(window.isRunning());
    QCOMPARE(window.plannedRuns(), 8);
    QCOMPARE(window.heading(), QString("sweep devices=1,2 batch-size=64,256 lr=0.1,0.2: 0 of 8 runs, each point once"));
    QVERIFY2(window.windowTitle().contains("0 of 8 runs"), qPrintable(window.windowTitle()));
    QCOMPARE(window.tableModel()->rowCount(), 0);
    QTemporaryDir dir;
    QString problem;
    const QString csv = dir.filePath("table.csv");
    QVERIFY2(window.exportCsv(csv, &problem), qPrintable(problem));  // before any run: the header
    QFile empty(csv);
    QVERIFY(empty.open(QIODevice::ReadOnly));
    QCOMPARE(empty.readAll().toStdString(), dp::study_table_csv({}));

    window.addRun(finishedPlannedRun(runs[0], sweepSeconds(runs[0])));
    window.addRun(finishedPlannedRun(runs[1], sweepSeconds(runs[1])));
    QVERIFY2(window.heading().contains("2 of 8 runs"), qPrintable(window.heading()));
    QVERIFY2(window.windowTitle().contains("2 of 8 runs"), qPrintable(window.windowTitle()));
    const StudyTableModel* model = window.tableModel();
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->index(0, StudyTableModel::Speedup).data().toString(), QString("baseline"));
    QCOMPARE(model->index(1, StudyTableModel::Devices).data().toInt(), 2);
    QCOMPARE(model->index(1, StudyTableModel::Efficiency).data().toString(), QString("63%"));
    QCOMPARE(*window.heatMap()->efficiencyAt(2, 64), 0.625);
    QVERIFY(!window.heatMap()->efficiencyAt(2, 256));  // not run yet

    // A run that failed counts as ended, but has no row.
    dp::RunRecord failed = finishedPlannedRun(runs[2], 2.0);
    failed.status = dp::RunStatus::failed;
    window.addRun(failed);
    QVERIFY2(window.heading().contains("3 of 8 runs"), qPrintable(window.heading()));
    QCOMPARE(model->rowCount(), 2);

    for (std::size_t i = 3; i < runs.size(); ++i)
        window.addRun(finishedPlannedRun(runs[i], sweepSeconds(runs[i])));
    QCOMPARE(model->rowCount(), 7);  // 8 points, less the one that failed
    QVERIFY2(window.exportCsv(csv, &problem), qPrintable(problem));
    QFile written(csv);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll().toStdString(), dp::study_table_csv(window.study().table()));

    const QString path = dir.filePath("study-1.json");
    dp::write_study(path.toStdString(), window.study());
    window.studyEnded(path);
    QVERIFY(!window.isRunning());
    QCOMPARE(window.heading(), QString("sweep devices=1,2 batch-size=64,256 lr=0.1,0.2: 8 runs, each point once"));
    QVERIFY2(window.windowTitle().contains("study-1.json"), qPrintable(window.windowTitle()));
    QCOMPARE(dp::read_study(path.toStdString()).runs.size(), std::size_t(8));
}

// A grid of two learning rates: a picker above the heat map (none for one
// lr) chooses whose efficiencies it shows, and keeps the choice as runs end.
void TestUiCharts::heatMapShowsTheLearningRatePicked()
{
    const dp::StudyPlan plan = twoLrSweep();
    const std::vector<dp::PlannedRun> runs = plan.runs();
    StudyWindow window(plan);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QComboBox* picker = window.learningRatePicker();
    EfficiencyHeatMap* map = window.heatMap();
    for (std::size_t i = 0; i < 4; ++i)  // lr 0.1's four points
        window.addRun(finishedPlannedRun(runs[i], sweepSeconds(runs[i])));
    QVERIFY(!picker->isVisible());
    QCOMPARE(map->title(), QString("Scaling efficiency, lr 0.1"));

    window.addRun(finishedPlannedRun(runs[4], sweepSeconds(runs[4])));
    window.addRun(finishedPlannedRun(runs[5], sweepSeconds(runs[5])));  // lr 0.2, batch 64
    QVERIFY(picker->isVisible());
    QCOMPARE(picker->count(), 2);
    QCOMPARE(picker->itemText(0), QString("0.1"));
    QCOMPARE(picker->itemText(1), QString("0.2"));
    QCOMPARE(picker->currentIndex(), 0);
    QCOMPARE(*map->efficiencyAt(2, 64), 0.625);  // still lr 0.1's

    picker->setCurrentIndex(1);
    QCOMPARE(map->shownLearningRate(), 0.2f);
    QCOMPARE(map->title(), QString("Scaling efficiency, lr 0.2"));
    QCOMPARE(*map->efficiencyAt(2, 64), 0.8);
    QVERIFY(!map->efficiencyAt(2, 256));  // lr 0.2 at batch 256 has not run yet
    QCOMPARE(map->batchSizes(), (QList<int>{64}));

    // The next run keeps lr 0.2 shown, and fills its cell.
    window.addRun(finishedPlannedRun(runs[6], sweepSeconds(runs[6])));
    window.addRun(finishedPlannedRun(runs[7], sweepSeconds(runs[7])));
    QCOMPARE(picker->currentIndex(), 1);
    QCOMPARE(map->shownLearningRate(), 0.2f);
    QCOMPARE(*map->efficiencyAt(2, 256), 0.8);
    QCOMPARE(text_floor::textProblems(window, 12), QStringList());
}

QTEST_MAIN(TestUiCharts)
#include "test_ui_charts.moc"
