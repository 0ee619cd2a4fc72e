// The settings panel as a user meets it, on the offscreen platform: each
// problem shown by its field in the panel's words, Start off with the status
// saying why, numbers quoted as typed, a data folder per data set, the
// first-run hint, the devices a GPU machine starts with (on a made-up
// machine: there may be no GPU here), and the resources compiled into dp_ui.
// The data folders are made-up too: the checks look at file names only.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include "dataset_metadata.h"
#include "devices/device.h"
#include "field_note.h"
#include "help_menu.h"
#include "main_window.h"
#include "run_config_panel.h"
#include "run_settings.h"
#include "vocabulary.h"
#include "train/build_info.h"
#include "workbench_resources.h"
#include "workbench_sandbox.h"

namespace {

const QStringList kMnistFiles = {
    QStringLiteral("train-images-idx3-ubyte"), QStringLiteral("train-labels-idx1-ubyte"),
    QStringLiteral("t10k-images-idx3-ubyte"), QStringLiteral("t10k-labels-idx1-ubyte")};

// A folder holding `files` (empty files: only their names are checked before Start).
void createFiles(const QString& folder, const QStringList& files)
{
    QVERIFY(QDir().mkpath(folder));
    for (const QString& name : files) {
        QFile file(QDir(folder).filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
    }
}

dp::DeviceInfo device(const std::string& id, dp::DeviceKind kind)
{
    return {.id = id, .description = "made up", .cores = {}, .kind = kind,
            .cuda_ordinal = kind == dp::DeviceKind::cuda ? std::stoi(id.substr(5)) : -1};
}

// A GPU machine as the issue describes it: 8 GPUs and 16 CPU cores.
std::vector<dp::DeviceInfo> gpuMachine()
{
    std::vector<dp::DeviceInfo> devices;
    for (int i = 0; i < 8; ++i)
        devices.push_back(device("cuda:" + std::to_string(i), dp::DeviceKind::cuda));
    for (int i = 0; i < 16; ++i)
        devices.push_back(device("cpu:" + std::to_string(i), dp::DeviceKind::cpu));
    return devices;
}

std::vector<std::string> idsOf(const std::vector<dp::DeviceInfo>& devices)
{
    std::vector<std::string> ids;
    for (const dp::DeviceInfo& each : devices)
        ids.push_back(each.id);
    return ids;
}

std::vector<std::string> idsOfKind(const std::vector<dp::DeviceInfo>& devices, dp::DeviceKind kind)
{
    std::vector<dp::DeviceInfo> chosen;
    std::copy_if(devices.begin(), devices.end(), std::back_inserter(chosen),
                 [kind](const dp::DeviceInfo& each) { return each.kind == kind; });
    return idsOf(chosen);
}

// The note under `field` (a config_fields name), or the panel's general one.
FieldNote* noteOf(const QWidget& panel, const QString& field)
{
    return panel.findChild<FieldNote*>(field + QStringLiteral("Note"));
}

}  // namespace

class TestUiSettings : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void defaultDevicesAreEveryGpuElseEveryCpuCore();
    void aGpuMachineStartsOnItsGpusWithEightRowsShown();
    void devicesOfBothKindsAreExplainedByTheList();
    void rememberedDevicesMixingKindsAreDropped();
    void aGpuRowShowsItsWholeNameAndReplicasAreAField();
    void aMissingFolderIsShownByItsFieldAndStartSaysWhy();
    void aFolderMissingOneFileNamesIt();
    void anMnistFormatSetWithoutAFolderAsksForOne();
    void theInstalledCopyMissingIsExplained();
    void learningRatesAreQuotedAsTyped();
    void decimalFieldsTakeAPointInEveryLocale();
    void aDataFolderStaysWithItsDataSet();
    void engineProblemsAreShownByTheirField();
    void advancedSettingsAreEditedFromTheSchema();
    void theHelpMenuSaysWhatThisBuildIs();
    void tooFewStepsForLeNetGiveAHint();
    void classNamesComeFromTheDatasetMetadata();
    void theIconIsCompiledIn();
    void precisionsNoDeviceHereComputesAreDisabledWithTheReason();
    void syncBatchNormIsDisabledForModelsWithoutBatchNorm();
    void countsAreProperPlurals();

private:
    RunConfigPanel* newPanel(std::vector<dp::DeviceInfo> devices = dp::available_devices());

    QTemporaryDir scratch_;
    QString installedCopy_;
    std::vector<std::unique_ptr<RunConfigPanel>> panels_;
    int dataDirs_ = 0;
};

void TestUiSettings::initTestCase()
{
    QVERIFY(scratch_.isValid());
    keepWorkbenchSettingsIn(scratch_, "test_ui_settings");
    // Fashion-MNIST "installed" here, so no test depends on the real copy.
    installedCopy_ = scratch_.filePath(QStringLiteral("fashion-mnist"));
    QStringList gzipped;
    for (const QString& name : kMnistFiles)
        gzipped.append(name + QStringLiteral(".gz"));
    createFiles(installedCopy_, gzipped);
}

void TestUiSettings::init()
{
    panels_.clear();
    startWithEmptySettingsAndHistory(scratch_, dataDirs_);
    qputenv("DP_DATA_DIR", installedCopy_.toUtf8());
}

RunConfigPanel* TestUiSettings::newPanel(std::vector<dp::DeviceInfo> devices)
{
    panels_.push_back(std::make_unique<RunConfigPanel>(std::move(devices)));
    panels_.back()->show();
    return panels_.back().get();
}

void TestUiSettings::defaultDevicesAreEveryGpuElseEveryCpuCore()
{
    const std::vector<dp::DeviceInfo> machine = gpuMachine();
    QCOMPARE(idsOf(dp::default_devices(machine)), idsOfKind(machine, dp::DeviceKind::cuda));
    const std::vector<dp::DeviceInfo> cpuOnly(machine.begin() + 8, machine.end());
    QCOMPARE(idsOf(dp::default_devices(cpuOnly)), idsOf(cpuOnly));
    QVERIFY(dp::default_devices({}).empty());
}

void TestUiSettings::aGpuMachineStartsOnItsGpusWithEightRowsShown()
{
    const std::vector<dp::DeviceInfo> machine = gpuMachine();
    RunConfigPanel* panel = newPanel(machine);
    QCOMPARE(panel->config().devices, idsOfKind(machine, dp::DeviceKind::cuda));
    QVERIFY2(panel->isValid(), qPrintable(panel->validationError()));

    auto* list = panel->findChild<QListWidget*>(QStringLiteral("deviceList"));
    QVERIFY(list);
    // The 8 GPUs fit without scrolling; the cores scroll below them.
    const int rowHeight = list->visualItemRect(list->item(0)).height();
    QVERIFY2(list->viewport()->height() >= 8 * rowHeight && list->viewport()->height() < 9 * rowHeight,
             qPrintable(QStringLiteral("%1 px for rows of %2 px").arg(list->viewport()->height()).arg(rowHeight)));

    auto* allCpuCores = panel->findChild<QPushButton*>(QStringLiteral("allCpuCoresButton"));
    auto* allGpus = panel->findChild<QPushButton*>(QStringLiteral("allGpusButton"));
    QVERIFY(allCpuCores && allGpus && allGpus->isVisible());
    QTest::mouseClick(allCpuCores, Qt::LeftButton);
    QCOMPARE(panel->config().devices, idsOfKind(machine, dp::DeviceKind::cpu));
    QVERIFY(panel->isValid());
    QTest::mouseClick(allGpus, Qt::LeftButton);
    QCOMPARE(panel->config().devices, idsOfKind(machine, dp::DeviceKind::cuda));

    // A machine without GPUs offers no GPU button and starts on every core.
    RunConfigPanel* cpuPanel = newPanel({machine.begin() + 8, machine.end()});
    QVERIFY(!cpuPanel->findChild<QPushButton*>(QStringLiteral("allGpusButton"))->isVisible());
    QCOMPARE(cpuPanel->config().devices, idsOfKind(machine, dp::DeviceKind::cpu));
}

void TestUiSettings::devicesOfBothKindsAreExplainedByTheList()
{
    RunConfigPanel* panel = newPanel(gpuMachine());
    auto* list = panel->findChild<QListWidget*>(QStringLiteral("deviceList"));
    FieldNote* note = noteOf(*panel, QStringLiteral("devices"));
    QVERIFY(list && note);
    QVERIFY(!note->isVisible());
    list->item(8)->setCheckState(Qt::Checked);  // cpu:0 beside the GPUs
    QVERIFY(!panel->isValid());
    QVERIFY(note->isVisible());
    QCOMPARE(note->kind(), FieldNote::Kind::problem);
    QVERIFY2(note->text().contains(QStringLiteral("not both")), qPrintable(note->text()));
    QVERIFY2(note->text().contains(QStringLiteral("All GPUs")), qPrintable(note->text()));

    for (int row = 0; row < list->count(); ++row)
        list->item(row)->setCheckState(Qt::Unchecked);
    QVERIFY(note->text().contains(QStringLiteral("at least one device")));
    QVERIFY(!panel->isValid());
}

void TestUiSettings::rememberedDevicesMixingKindsAreDropped()
{
    const std::vector<dp::DeviceInfo> machine = gpuMachine();
    // What earlier versions remembered on a GPU machine: every device.
    QVERIFY(usableDeviceIds(idsOf(machine), machine).empty());
    QCOMPARE(usableDeviceIds({"cuda:1", "cuda:9"}, machine), std::vector<std::string>{"cuda:1"});
    QCOMPARE(usableDeviceIds({"cpu:3", "cpu:99"}, machine), std::vector<std::string>{"cpu:3"});
    QVERIFY(usableDeviceIds({"cpu:99"}, machine).empty());
    // Replicas are usable where their device is.
    QCOMPARE(usableDeviceIds({"cuda:1x2", "cuda:9x2", "cuda:1x99"}, machine),
             std::vector<std::string>{"cuda:1x2"});
}

// The H100 row of the first GPU run: its name and memory on two lines, read
// in full without a horizontal scroll bar in the panel's width; two replicas
// of it are "cuda:0x2" and come back from a remembered config.
void TestUiSettings::aGpuRowShowsItsWholeNameAndReplicasAreAField()
{
    std::vector<dp::DeviceInfo> machine = gpuMachine();
    machine.erase(machine.begin() + 1, machine.begin() + 8);
    machine[0].description = dp::cuda_device_description("NVIDIA H100 80GB HBM3", 85'045'870'592, 132);
    RunConfigPanel* panel = newPanel(machine);
    auto* list = panel->findChild<QListWidget*>(QStringLiteral("deviceList"));
    QVERIFY(list);
    const QStringList lines = list->item(0)->text().split(QLatin1Char('\n'));
    QCOMPARE(lines, (QStringList{QStringLiteral("cuda:0 — NVIDIA H100 80GB HBM3"),
                                 QStringLiteral("79.2 GiB, 132 SMs")}));
    QVERIFY(!list->horizontalScrollBar()->isVisible());
    for (const QString& line : lines)
        QVERIFY2(list->fontMetrics().horizontalAdvance(line) < list->viewport()->width(),
                 qPrintable(line));

    auto* replicas = panel->findChild<QSpinBox*>(QStringLiteral("replicasPerDevice"));
    QVERIFY(replicas);
    QCOMPARE(panel->config().devices, std::vector<std::string>{"cuda:0"});
    replicas->setValue(2);
    QCOMPARE(panel->config().devices, std::vector<std::string>{"cuda:0x2"});
    QCOMPARE(panel->checkedDeviceCount(), 2);  // Compare 1 vs 2 on one GPU
    dp::TrainConfig remembered = panel->config();
    remembered.devices = {"cuda:0x3"};
    panel->setConfig(remembered);
    QCOMPARE(replicas->value(), 3);
    QCOMPARE(panel->config().devices, std::vector<std::string>{"cuda:0x3"});
}

void TestUiSettings::aMissingFolderIsShownByItsFieldAndStartSaysWhy()
{
    const QString missing = scratch_.filePath(QStringLiteral("no-such-folder"));
    MainWindow window;
    auto* panel = window.findChild<RunConfigPanel*>(QStringLiteral("runConfigPanel"));
    auto* start = window.findChild<QPushButton*>(QStringLiteral("startButton"));
    auto* status = window.findChild<QLabel*>(QStringLiteral("statusLabel"));
    QVERIFY(panel && start && status);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(start->isEnabled());
    QCOMPARE(status->text(), QStringLiteral("Ready"));

    dp::TrainConfig config;
    config.dataset = "mnist-format";
    config.data_dir = missing.toStdString();
    window.setRunConfig(config);
    FieldNote* note = noteOf(*panel, QStringLiteral("data_dir"));
    QVERIFY(note && note->isVisible());
    QCOMPARE(note->text(), QStringLiteral("There is no folder %1.").arg(QDir::toNativeSeparators(missing)));
    QVERIFY(!start->isEnabled());
    QCOMPARE(status->text(), QStringLiteral("Cannot start: ") + note->text());

    // Created while the window waits: checked again, and Start comes back.
    createFiles(missing, kMnistFiles);
    window.setRunConfig(config);
    QVERIFY(!note->isVisible());
    QVERIFY(start->isEnabled());
    QCOMPARE(status->text(), QStringLiteral("Ready"));
}

void TestUiSettings::aFolderMissingOneFileNamesIt()
{
    const QString folder = scratch_.filePath(QStringLiteral("three-of-four"));
    // Compressed or not, as the loader takes them.
    createFiles(folder, {QStringLiteral("train-images-idx3-ubyte.gz"),
                         QStringLiteral("train-labels-idx1-ubyte"),
                         QStringLiteral("t10k-images-idx3-ubyte.gz")});
    RunConfigPanel* panel = newPanel();
    dp::TrainConfig config;
    config.dataset = "mnist-format";
    config.data_dir = folder.toStdString();
    panel->setConfig(config);
    FieldNote* note = noteOf(*panel, QStringLiteral("data_dir"));
    QVERIFY(!panel->isValid());
    QCOMPARE(note->text(), QStringLiteral("This folder has no t10k-labels-idx1-ubyte (.gz or not)."));

    auto* folderEdit = panel->findChild<QLineEdit*>(QStringLiteral("dataFolderEdit"));
    QVERIFY(folderEdit);
    folderEdit->setText(scratch_.path());  // none of the four
    QVERIFY2(note->text().contains(QStringLiteral("none of the four")), qPrintable(note->text()));
    createFiles(folder, {QStringLiteral("t10k-labels-idx1-ubyte.gz")});
    folderEdit->setText(folder);
    QVERIFY2(panel->isValid(), qPrintable(panel->validationError()));
    QVERIFY(!note->isVisible());
}

void TestUiSettings::anMnistFormatSetWithoutAFolderAsksForOne()
{
    RunConfigPanel* panel = newPanel();
    auto* datasetCombo = panel->findChild<QComboBox*>(QStringLiteral("datasetCombo"));
    QVERIFY(datasetCombo);
    datasetCombo->setCurrentIndex(datasetCombo->findData(QStringLiteral("mnist-format")));
    QVERIFY(!panel->isValid());
    const QString text = noteOf(*panel, QStringLiteral("data_dir"))->text();
    QCOMPARE(text, QStringLiteral("Choose the folder that holds the four MNIST-format files: "
                                  "train and t10k images and labels."));
    // The panel's words, never dp-train's flags or the engine's markers.
    QVERIFY(!panel->validationError().contains(QStringLiteral("--")));
    QVERIFY(!panel->validationError().contains(QLatin1Char('{')));
}

void TestUiSettings::theInstalledCopyMissingIsExplained()
{
    const QString missing = scratch_.filePath(QStringLiteral("not-installed"));
    qputenv("DP_DATA_DIR", missing.toUtf8());
    RunConfigPanel* panel = newPanel();
    QVERIFY(!panel->isValid());
    QCOMPARE(noteOf(*panel, QStringLiteral("data_dir"))->text(),
             QStringLiteral("Fashion-MNIST is not installed in %1: install the dataset-fashion-mnist "
                            "package, or choose a folder that holds its four files.")
                 .arg(QDir::toNativeSeparators(missing)));
}

void TestUiSettings::learningRatesAreQuotedAsTyped()
{
    RunConfigPanel* panel = newPanel();
    auto* spin = panel->findChild<QDoubleSpinBox*>(QStringLiteral("learningRateSpin"));
    FieldNote* note = noteOf(*panel, QStringLiteral("lr"));
    QVERIFY(spin && note);
    QCOMPARE(spin->text(), QStringLiteral("0.2"));  // not 0.2000
    const auto type = [&](const QString& text) {
        spin->selectAll();
        QTest::keyClicks(spin, text);
        QCOMPARE(spin->text(), text);
    };
    type(QStringLiteral("-0.1"));
    QVERIFY(!panel->isValid());
    QCOMPARE(note->text(), QStringLiteral("Learning rate must be more than 0, not -0.1."));
    type(QStringLiteral("0"));
    QCOMPARE(note->text(), QStringLiteral("Learning rate must be more than 0, not 0."));
    type(QStringLiteral("-0.000001"));
    QCOMPARE(note->text(), QStringLiteral("Learning rate must be more than 0, not -0.000001."));
    type(QStringLiteral("0.000001"));
    QVERIFY(panel->isValid());
    QVERIFY(!note->isVisible());
    QCOMPARE(panel->config().lr, 0.000001f);

    // The batch size too, by its label.
    panel->findChild<QSpinBox*>(QStringLiteral("batchSizeSpin"))->setValue(0);
    QCOMPARE(noteOf(*panel, QStringLiteral("batch_size"))->text(),
             QStringLiteral("Batch size must be more than 0, not 0."));
}

// Issue 44: under de_DE.UTF-8, 0.05 typed in the learning rate gave 5 (the
// field read '.' as German's group separator). Numbers are typed and shown
// as on the command line, with a '.' in every locale; a ',' is taken for a
// decimal point too, and shown as one.
void TestUiSettings::decimalFieldsTakeAPointInEveryLocale()
{
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
    RunConfigPanel* panel = newPanel();
    auto* lr = panel->findChild<QDoubleSpinBox*>(QStringLiteral("learningRateSpin"));
    auto* timeout = panel->findChild<QDoubleSpinBox*>(QStringLiteral("collective_timeout_sEditor"));
    QVERIFY(lr && timeout);
    QCOMPARE(lr->text(), QStringLiteral("0.2"));
    const auto type = [](QDoubleSpinBox* field, const QString& text) {
        field->selectAll();
        QTest::keyClicks(field, text);
    };
    type(lr, QStringLiteral("0.05"));
    QCOMPARE(lr->text(), QStringLiteral("0.05"));
    QCOMPARE(panel->config().lr, 0.05f);
    type(lr, QStringLiteral("1,5"));
    QCOMPARE(lr->text(), QStringLiteral("1.5"));
    QCOMPARE(panel->config().lr, 1.5f);

    type(timeout, QStringLiteral("30.5"));
    QCOMPARE(panel->config().collective_timeout_s, 30.5);
    type(timeout, QStringLiteral("0.005"));
    QCOMPARE(noteOf(*panel, QStringLiteral("collective_timeout_s"))->text(),
             QStringLiteral("Collective timeout must be at least 0.01, not 0.005."));
}

void TestUiSettings::aDataFolderStaysWithItsDataSet()
{
    const QString mnist = scratch_.filePath(QStringLiteral("mnist"));
    createFiles(mnist, kMnistFiles);
    {
        MainWindow window;
        auto* panel = window.findChild<RunConfigPanel*>(QStringLiteral("runConfigPanel"));
        auto* datasetCombo = window.findChild<QComboBox*>(QStringLiteral("datasetCombo"));
        auto* folderEdit = window.findChild<QLineEdit*>(QStringLiteral("dataFolderEdit"));
        QVERIFY(panel && datasetCombo && folderEdit);
        datasetCombo->setCurrentIndex(datasetCombo->findData(QStringLiteral("mnist-format")));
        folderEdit->setText(mnist);
        QCOMPARE(panel->config().data_dir, mnist.toStdString());
        QVERIFY(panel->isValid());

        datasetCombo->setCurrentIndex(datasetCombo->findData(QStringLiteral("fashion-mnist")));
        QCOMPARE(folderEdit->text(), QString());
        QCOMPARE(panel->config().data_dir, std::string());  // the installed copy
        QVERIFY(panel->isValid());
        datasetCombo->setCurrentIndex(datasetCombo->findData(QStringLiteral("mnist-format")));
        QCOMPARE(folderEdit->text(), mnist);
        datasetCombo->setCurrentIndex(datasetCombo->findData(QStringLiteral("fashion-mnist")));
    }
    // And between launches: the MNIST folder is remembered, not shown for Fashion-MNIST.
    MainWindow reopened;
    auto* datasetCombo = reopened.findChild<QComboBox*>(QStringLiteral("datasetCombo"));
    auto* folderEdit = reopened.findChild<QLineEdit*>(QStringLiteral("dataFolderEdit"));
    QCOMPARE(reopened.runConfig().dataset, std::string("fashion-mnist"));
    QCOMPARE(folderEdit->text(), QString());
    datasetCombo->setCurrentIndex(datasetCombo->findData(QStringLiteral("mnist-format")));
    QCOMPARE(reopened.runConfig().data_dir, mnist.toStdString());
}

void TestUiSettings::engineProblemsAreShownByTheirField()
{
    std::vector<dp::DeviceInfo> machine = gpuMachine();
    RunConfigPanel* panel = newPanel(machine);
    dp::TrainConfig config;
    config.batch_size = 4;  // 8 GPUs
    panel->setConfig(config);
    FieldNote* batchNote = noteOf(*panel, QStringLiteral("batch_size"));
    QVERIFY(!panel->isValid());
    QVERIFY2(batchNote->text().startsWith(QStringLiteral("Batch size 4 is smaller than the 8 devices")),
             qPrintable(batchNote->text()));

    config.batch_size = 256;
    config.dataset = "random";
    panel->setConfig(config);
    const QString modelNote = noteOf(*panel, QStringLiteral("model"))->text();
    QVERIFY2(modelNote.startsWith(QStringLiteral("LeNet cannot take the random data set")),
             qPrintable(modelNote));
    QVERIFY2(modelNote.contains(QStringLiteral("“model”")), qPrintable(modelNote));

    // A setting without a field of its own: the note at the top of the panel.
    config.dataset = "fashion-mnist";
    config.save_path = scratch_.path().toStdString();  // a folder, not a file
    panel->setConfig(config);
    QVERIFY(!panel->isValid());
    QVERIFY(noteOf(*panel, QStringLiteral("general"))->isVisible());
}

// The Advanced box has an editor for each setting the schema marks
// advanced, made from its kind alone: weight decay needs no ui/ code.
void TestUiSettings::advancedSettingsAreEditedFromTheSchema()
{
    RunConfigPanel* panel = newPanel();
    auto* decay = panel->findChild<QDoubleSpinBox*>(QStringLiteral("weight_decayEditor"));
    auto* accumulate = panel->findChild<QSpinBox*>(QStringLiteral("accumulateEditor"));
    QVERIFY(decay && accumulate && panel->findChild<QDoubleSpinBox*>(QStringLiteral("bucket_mbEditor")));
    QVERIFY(decay->toolTip().contains(QStringLiteral("--weight-decay")));
    dp::TrainConfig config;
    config.weight_decay = 0.0005f;
    config.accumulate = 4;
    panel->setConfig(config);
    QCOMPARE(decay->text(), QStringLiteral("0.0005"));
    QCOMPARE(panel->config().weight_decay, 0.0005f);
    QCOMPARE(panel->config().accumulate, 4);

    decay->setValue(-0.1);
    QVERIFY(!panel->isValid());
    QCOMPARE(noteOf(*panel, QStringLiteral("weight_decay"))->text(),
             QStringLiteral("Weight decay must be 0 or more, not -0.1."));
    decay->setValue(0.001);
    QVERIFY(panel->isValid());
    QCOMPARE(panel->config().weight_decay, 0.001f);

    // A list (--slow-device) is a line of its comma-separated items.
    auto* slow = panel->findChild<QLineEdit*>(QStringLiteral("slow_devicesEditor"));
    QVERIFY(slow && slow->toolTip().contains(QStringLiteral("--slow-device")));
    slow->setText(QStringLiteral("cpu:0=1.5"));
    QCOMPARE(panel->config().slow_devices, std::vector<std::string>{"cpu:0=1.5"});
    slow->setText(QStringLiteral("cpu:0"));
    QVERIFY(!panel->isValid());
    QVERIFY(noteOf(*panel, QStringLiteral("slow_devices"))->text().contains(QStringLiteral("DEVICE=FACTOR")));
}

// Help: About names the build as dp-train --version does (version, commit,
// backends, MPI) and this machine's devices; Shortcuts and Glossary are there.
void TestUiSettings::theHelpMenuSaysWhatThisBuildIs()
{
    MainWindow window;
    const dp::BuildInfo build = dp::build_info();
    addAboutAction(&window, build);  // as dp-workbench's main() does
    for (const char* name : {"aboutAction", "shortcutsAction", "glossaryAction"})
        QVERIFY2(window.findChild<QAction*>(QString::fromLatin1(name)), name);
    const QString about = aboutText(build);
    QVERIFY2(about.contains(QStringLiteral("DP Workbench %1").arg(QString::fromStdString(build.version)))
                 && about.contains(QStringLiteral("oneDNN"))
                 && about.contains(QString::fromStdString(dp::available_devices().front().id)),
             qPrintable(about));
    if (!build.commit.empty())
        QVERIFY(about.contains(QString::fromStdString(build.commit)));
    QVERIFY(shortcutsText().contains(QStringLiteral("F11")));
    for (const char* word : {"Speedup", "Strong scaling", "Weak scaling", "Gap", "Drift", "Busy"})
        QVERIFY2(glossaryText().contains(QString::fromLatin1(word)), word);
}

void TestUiSettings::tooFewStepsForLeNetGiveAHint()
{
    RunConfigPanel* panel = newPanel();
    dp::TrainConfig config;  // LeNet, batch 256, 10 epochs
    config.limit_train = 3000;
    panel->setConfig(config);
    FieldNote* note = noteOf(*panel, QStringLiteral("batch_size"));
    QVERIFY(note->isVisible());
    QCOMPARE(note->kind(), FieldNote::Kind::hint);
    QVERIFY2(note->text().contains(QStringLiteral("these settings make 120")), qPrintable(note->text()));
    QVERIFY(note->text().contains(QStringLiteral("smaller batch")));
    QVERIFY(panel->isValid());  // a hint, not a refusal

    config.batch_size = 32;
    config.epochs = 15;  // 1,410 steps
    panel->setConfig(config);
    QVERIFY(!note->isVisible());
    config.batch_size = 256;
    config.limit_train = 0;  // all 60,000 images: 2,350 steps
    panel->setConfig(config);
    QVERIFY(!note->isVisible());
    config.limit_train = 3000;
    config.model = "mnistnet";  // ReLU: learns from its first steps
    panel->setConfig(config);
    QVERIFY(!note->isVisible());
}

void TestUiSettings::classNamesComeFromTheDatasetMetadata()
{
    const DatasetMetadata fashion = datasetMetadata("fashion-mnist");
    QCOMPARE(fashion.title, QStringLiteral("Fashion-MNIST"));
    QCOMPARE(fashion.classNames.size(), 10);
    QCOMPARE(fashion.classNames.front(), QStringLiteral("t-shirt"));
    QCOMPARE(fashion.classNames.back(), QStringLiteral("ankle boot"));
    QCOMPARE(fashion.trainImages, 60000);
    QCOMPARE(fashion.testImages, 10000);
    // Any MNIST-format folder: its classes show as numbers.
    QVERIFY(datasetMetadata("mnist-format").classNames.isEmpty());
    QVERIFY(datasetMetadata("no-such-set").title.isEmpty());
}

void TestUiSettings::theIconIsCompiledIn()
{
    QVERIFY(!workbenchIcon().isNull());
    QSvgRenderer icon(QStringLiteral(":/icons/dp-workbench.svg"));
    QVERIFY(icon.isValid());
    QCOMPARE(icon.defaultSize(), QSize(256, 256));
}

void TestUiSettings::precisionsNoDeviceHereComputesAreDisabledWithTheReason()
{
    const std::vector<dp::DeviceInfo> machine = gpuMachine();
    const std::vector<dp::DeviceInfo> cpuOnly(machine.begin() + 8, machine.end());
    const auto precisionItem = [](RunConfigPanel* panel, const QString& name) {
        auto* combo = panel->findChild<QComboBox*>(QStringLiteral("precisionCombo"));
        auto* items = qobject_cast<QStandardItemModel*>(combo->model());
        return items->item(combo->findData(name));
    };
    RunConfigPanel* cpuPanel = newPanel(cpuOnly);
    // TF32 is a GPU format: on CPU cores alone it is offered disabled, saying why.
    QStandardItem* tf32 = precisionItem(cpuPanel, QStringLiteral("tf32"));
    QVERIFY(!tf32->isEnabled());
    QVERIFY2(tf32->toolTip().contains(QStringLiteral("GPU")), qPrintable(tf32->toolTip()));
    QVERIFY(precisionItem(cpuPanel, QStringLiteral("fp32"))->isEnabled());
    QVERIFY(precisionItem(cpuPanel, QStringLiteral("fp32"))->toolTip().isEmpty());
    // A machine with GPUs computes every precision.
    RunConfigPanel* gpuPanel = newPanel(machine);
    for (const QString& name : {QStringLiteral("fp32"), QStringLiteral("bf16"), QStringLiteral("tf32")})
        QVERIFY2(precisionItem(gpuPanel, name)->isEnabled(), qPrintable(name));
}

void TestUiSettings::syncBatchNormIsDisabledForModelsWithoutBatchNorm()
{
    RunConfigPanel* panel = newPanel();
    auto* models = panel->findChild<QComboBox*>(QStringLiteral("modelCombo"));
    auto* syncBn = panel->findChild<QCheckBox*>(QStringLiteral("syncBnCheck"));
    models->setCurrentIndex(models->findData(QStringLiteral("lenet")));
    QVERIFY(!syncBn->isEnabled());
    QVERIFY2(syncBn->toolTip().contains(QStringLiteral("LeNet has no BatchNorm")),
             qPrintable(syncBn->toolTip()));
    models->setCurrentIndex(models->findData(QStringLiteral("resnet18-narrow")));
    QVERIFY(syncBn->isEnabled());
    QVERIFY(!syncBn->toolTip().contains(QStringLiteral("no BatchNorm")));
    models->setCurrentIndex(models->findData(QStringLiteral("linear")));
    QVERIFY(!syncBn->isEnabled());
}

void TestUiSettings::countsAreProperPlurals()
{
    QCOMPARE(vocabulary::runs(1), QStringLiteral("1 run"));
    QCOMPARE(vocabulary::runs(0), QStringLiteral("0 runs"));
    QCOMPARE(vocabulary::runs(30), QStringLiteral("30 runs"));
    QCOMPARE(vocabulary::devices(1), QStringLiteral("1 device"));
    QCOMPARE(vocabulary::devices(2), QStringLiteral("2 devices"));
    QCOMPARE(vocabulary::epochs(8), QStringLiteral("8 epochs"));
    QCOMPARE(vocabulary::secondsPerEpoch(1.234), QStringLiteral("1.23 s/epoch"));
    QCOMPARE(vocabulary::speedup(1.954), QStringLiteral("1.95×"));
}

QTEST_MAIN(TestUiSettings)
#include "test_ui_settings.moc"
