#include "study_window.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/error.h"
#include "efficiency_heat_map.h"
#include "io/atomic_file.h"
#include "study_table_model.h"

StudyWindow::StudyWindow(dp::Study study, const QString& path, QWidget* parent)
    : StudyWindow(std::move(study), 0, parent)
{
    studyEnded(path);
}

StudyWindow::StudyWindow(const dp::StudyPlan& plan, QWidget* parent)
    : StudyWindow(dp::study_of(plan), int(plan.runs().size()), parent)
{
    running_ = true;
    showRuns();
}

StudyWindow::StudyWindow(dp::Study study, int plannedRuns, QWidget* parent)
    : QWidget(parent, Qt::Window), study_(std::move(study)), plannedRuns_(plannedRuns),
      model_(new StudyTableModel(this)), table_(new QTableView), heatMap_(new EfficiencyHeatMap),
      lrRow_(new QWidget), lrPicker_(new QComboBox), summary_(new QLabel), source_(new QLabel)
{
    setObjectName(QStringLiteral("studyWindow"));
    setAttribute(Qt::WA_DeleteOnClose);
    summary_->setObjectName(QStringLiteral("studySummary"));
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    source_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    source_->setForegroundRole(QPalette::PlaceholderText);
    source_->hide();  // until the study is in a file

    table_->setObjectName(QStringLiteral("studyTable"));
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);

    lrPicker_->setObjectName(QStringLiteral("heatMapLr"));
    lrPicker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(lrPicker_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            heatMap_->showLearningRate(float(lrPicker_->itemData(index).toDouble()));
    });
    auto* lrLabel = new QLabel(tr("Heat map of learning rate"));
    lrLabel->setBuddy(lrPicker_);
    auto* lrLayout = new QHBoxLayout(lrRow_);
    lrLayout->setContentsMargins(0, 0, 0, 0);
    lrLayout->addWidget(lrLabel);
    lrLayout->addWidget(lrPicker_);
    lrLayout->addStretch(1);
    auto* heatMapPane = new QWidget;
    auto* heatMapLayout = new QVBoxLayout(heatMapPane);
    heatMapLayout->setContentsMargins(0, 0, 0, 0);
    heatMapLayout->addWidget(lrRow_);
    heatMapLayout->addWidget(heatMap_, 1);

    auto* exportButton = new QPushButton(tr("Export CSV…"));
    exportButton->setObjectName(QStringLiteral("exportStudyCsv"));
    connect(exportButton, &QPushButton::clicked, this, &StudyWindow::chooseCsvFile);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(table_);
    splitter->addWidget(heatMapPane);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(source_);
    layout->addWidget(splitter, 1);
    layout->addWidget(exportButton, 0, Qt::AlignRight);
    resize(860, 640);
}

void StudyWindow::addRun(const dp::RunRecord& record)
{
    study_.runs.push_back(record);
    showRuns();
}

void StudyWindow::studyEnded(const QString& path)
{
    running_ = false;
    path_ = path;
    source_->setText(path);
    source_->setVisible(!path.isEmpty());
    showRuns();
}

QString StudyWindow::heading() const
{
    QString what = QString(dp::study_kind_name(study_.kind));
    if (!study_.grid.empty())
        what += QLatin1Char(' ') + QString::fromStdString(study_.grid);
    const QString runs = running_ ? tr("%1 of %2 runs").arg(study_.runs.size()).arg(plannedRuns_)
                                  : tr("%1 runs").arg(study_.runs.size());
    return tr("%1: %2, %3")
        .arg(what, runs,
             study_.repeats == 1 ? tr("each point once")
                                 : tr("each point %1 times (median and range)").arg(study_.repeats));
}

void StudyWindow::showRuns()
{
    const std::vector<dp::StudyRow> rows = study_.table();
    model_->setRows(rows);
    heatMap_->setRows(rows);
    showLearningRates();
    summary_->setText(heading());
    if (running_)
        setWindowTitle(tr("Study running, %1 of %2 runs — DP Workbench").arg(study_.runs.size()).arg(plannedRuns_));
    else if (!path_.isEmpty())
        setWindowTitle(tr("Study %1 — DP Workbench").arg(QFileInfo(path_).fileName()));
    else
        setWindowTitle(tr("Study — DP Workbench"));
}

void StudyWindow::showLearningRates()
{
    const QList<float>& lrs = heatMap_->learningRates();
    const QSignalBlocker quiet(lrPicker_);  // the map already shows its lr
    lrPicker_->clear();
    for (const float lr : lrs)
        lrPicker_->addItem(QString::number(double(lr), 'g', 6), double(lr));
    lrPicker_->setCurrentIndex(int(lrs.indexOf(heatMap_->shownLearningRate())));
    lrRow_->setVisible(lrs.size() > 1);
}

bool StudyWindow::exportCsv(const QString& path, QString* problem) const
{
    try {
        dp::AtomicFile out(path.toStdString());
        out.write(dp::study_table_csv(study_.table()));
        out.commit();
        return true;
    } catch (const dp::Error& error) {
        if (problem)
            *problem = QString::fromStdString(error.what());
        return false;
    }
}

void StudyWindow::chooseCsvFile()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the study's table"), QString(),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (QString problem; !exportCsv(path, &problem))
        QMessageBox::warning(this, tr("Table not exported"), problem);
}

StudyWindow* openStudyWindow(const QString& path, QWidget* parent, QString* problem)
{
    try {
        auto* window = new StudyWindow(dp::read_study(path.toStdString()), path, parent);
        window->show();
        return window;
    } catch (const dp::Error& error) {
        if (problem)
            *problem = QString::fromStdString(error.what());
        return nullptr;
    }
}

void chooseStudyFile(QWidget* parent)
{
    const QString path = QFileDialog::getOpenFileName(parent, QObject::tr("Open study"), QString(),
                                                      QObject::tr("Studies (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    if (QString problem; !openStudyWindow(path, parent, &problem))
        QMessageBox::warning(parent, QObject::tr("Study not opened"), problem);
}
