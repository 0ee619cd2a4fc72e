#include "study_window.h"

#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/error.h"
#include "efficiency_heat_map.h"
#include "io/atomic_file.h"
#include "study_table_model.h"

StudyWindow::StudyWindow(dp::Study study, const QString& path, QWidget* parent)
    : QWidget(parent, Qt::Window), study_(std::move(study)), model_(new StudyTableModel(this)),
      table_(new QTableView), heatMap_(new EfficiencyHeatMap)
{
    setObjectName(QStringLiteral("studyWindow"));
    setAttribute(Qt::WA_DeleteOnClose);
    const QString grid = QString::fromStdString(study_.grid);
    setWindowTitle(tr("Study %1 — DP Workbench").arg(QFileInfo(path).fileName()));
    const std::vector<dp::StudyRow> rows = study_.table();
    model_->setRows(rows);
    heatMap_->setRows(rows);

    auto* about = new QLabel(
        tr("%1 %2: %3 runs, %4")
            .arg(QString(dp::study_kind_name(study_.kind)), grid)
            .arg(study_.runs.size())
            .arg(study_.repeats == 1 ? tr("each point once")
                                     : tr("each point %1 times (median and range)").arg(study_.repeats)));
    about->setObjectName(QStringLiteral("studySummary"));
    about->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* source = new QLabel(path);
    source->setTextInteractionFlags(Qt::TextSelectableByMouse);
    source->setForegroundRole(QPalette::PlaceholderText);

    table_->setObjectName(QStringLiteral("studyTable"));
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto* exportButton = new QPushButton(tr("Export CSV…"));
    exportButton->setObjectName(QStringLiteral("exportStudyCsv"));
    connect(exportButton, &QPushButton::clicked, this, &StudyWindow::chooseCsvFile);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(table_);
    splitter->addWidget(heatMap_);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(about);
    layout->addWidget(source);
    layout->addWidget(splitter, 1);
    layout->addWidget(exportButton, 0, Qt::AlignRight);
    resize(860, 640);
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
