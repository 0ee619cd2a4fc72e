#include "classroom_page.h"

#include <algorithm>

#include <QBoxLayout>
#include <QComboBox>
#include <QEvent>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>

#include "batch_split_view.h"
#include "dataset_metadata.h"
#include "prediction_strip.h"
#include "ring_allreduce_view.h"
#include "run_swatch.h"
#include "runs_table_model.h"
#include "saved_step.h"

namespace {

constexpr int kSectionSpacing = 12;

// A view under the caption that says how to read it.
QWidget* captioned(const QString& caption, QWidget* view, int viewStretch)
{
    auto* section = new QWidget;
    auto* layout = new QVBoxLayout(section);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(caption);
    label->setWordWrap(true);
    layout->addWidget(label);
    layout->addWidget(view, viewStretch);
    if (viewStretch == 0)
        layout->addStretch(1);  // side by side, the view keeps its height at the top
    return section;
}

// The section's height at `width` with every widget at its preferred size.
int preferredHeight(const QWidget& section, int width)
{
    const QLayout& layout = *section.layout();
    return layout.hasHeightForWidth() ? layout.totalHeightForWidth(width)
                                      : section.sizeHint().height();
}

// A combo as wide as its longest item as drawn: Qt's AdjustToContents
// measures the items' ink (QFontMetrics::boundingRect), a few pixels short of
// the advance they are drawn in, which cut the last letter off at a 4K
// presenter's 38 px.
class WholeItemsComboBox : public QComboBox {
public:
    QSize sizeHint() const override { return widened(QComboBox::sizeHint()); }
    QSize minimumSizeHint() const override { return widened(QComboBox::minimumSizeHint()); }

private:
    QSize widened(QSize size) const
    {
        int ink = 0;
        int advance = 0;
        for (int item = 0; item < count(); ++item) {
            ink = std::max(ink, fontMetrics().boundingRect(itemText(item)).width());
            advance = std::max(advance, fontMetrics().horizontalAdvance(itemText(item)));
        }
        size.rwidth() += std::max(0, advance - ink);
        return size;
    }
};

}  // namespace

ClassroomPage::ClassroomPage(QWidget* parent)
    : QWidget(parent),
      runHeading_(new QLabel(tr("No run yet: start one, or check one in the Runs table, to see "
                                "its steps here"))),
      runPicker_(new WholeItemsComboBox),
      headingRow_(new QHBoxLayout),
      batchSplitView_(new BatchSplitView),
      predictionStrip_(new PredictionStrip),
      stepSection_(captioned(
          // Non-breaking hyphens (U+2011): a wrapped line never ends in "all-".
          tr("<b>One training step.</b> The global batch is split across the devices (top "
             "bar); each device computes its shard, then all wait for the gradients' "
             "all\u2011reduce. When the all\u2011reduce wait dominates, the model is too small "
             "to gain from more devices."),
          batchSplitView_, 0)),
      predictionSection_(captioned(
          tr("<b>Sample predictions</b> on the first test images after the latest epoch: green "
             "if right, red with the true label below if wrong."),
          predictionStrip_, 1)),
      sections_(new QBoxLayout(QBoxLayout::TopToBottom)),
      ringButton_(new QPushButton(tr("Ring all\u2011reduce step by step"))),
      ringView_(new RingAllReduceView),
      views_(new QStackedWidget)
{
    setObjectName(QStringLiteral("classroomPage"));
    runHeading_->setObjectName(QStringLiteral("classroomRunHeading"));
    runHeading_->setTextFormat(Qt::RichText);
    // Wrapped, so that the heading row (heading, run picker, ring button)
    // never makes the window wider than a 1024-pixel screen.
    runHeading_->setWordWrap(true);

    sections_->setSpacing(kSectionSpacing);
    sections_->addWidget(stepSection_);
    sections_->addWidget(predictionSection_, 1);
    auto* stepAndPredictions = new QWidget;
    stepAndPredictions->setLayout(sections_);
    sections_->setContentsMargins(0, 0, 0, 0);
    views_->addWidget(stepAndPredictions);
    QWidget* ringSection = captioned(
        tr("<b>The ring all\u2011reduce</b> of this run's gradients: each device sends one chunk "
           "to its right neighbour per step, so every link works at once. A chunk's colour and "
           "label: the devices whose gradients it already sums."),
        ringView_, 1);
    // Hidden, it must not make the page (and the window) taller than before.
    ringSection->setMinimumSize(1, 1);
    views_->addWidget(ringSection);
    ringButton_->setObjectName(QStringLiteral("classroomRingButton"));
    ringButton_->setCheckable(true);
    connect(ringButton_, &QPushButton::toggled, this, &ClassroomPage::showRingAllReduce);
    runPicker_->setObjectName(QStringLiteral("classroomRunPicker"));
    runPicker_->setToolTip(tr("The checked runs, newest first"));
    // As wide as the longest run's label ("LeNet · 2× cpu · b64 · lr 0.2 ·
    // repeat 3"): a combo cuts its text short, it neither wraps nor elides;
    // the heading beside it wraps instead.
    runPicker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    runPicker_->hide();
    connect(runPicker_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            showRun(runPicker_->itemData(index).toString().toStdString());
    });
    headingRow_->addWidget(runHeading_, 1);
    headingRow_->addWidget(runPicker_);
    headingRow_->addWidget(ringButton_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(headingRow_);
    layout->addWidget(views_, 1);
}

void ClassroomPage::showRingAllReduce(bool shown)
{
    ringButton_->setChecked(shown);
    views_->setCurrentIndex(shown ? 1 : 0);
}

void ClassroomPage::followRuns(const RunsTableModel* runs)
{
    runs_ = runs;
    connect(runs, &RunsTableModel::checkedChanged, this, &ClassroomPage::refreshPicker);
    connect(runs, &RunsTableModel::runRenamed, this, &ClassroomPage::refreshPicker);
    connect(runs, &QAbstractItemModel::rowsInserted, this, &ClassroomPage::refreshPicker);
    connect(runs, &QAbstractItemModel::rowsRemoved, this, &ClassroomPage::refreshPicker);
    connect(runs, &QAbstractItemModel::modelReset, this, &ClassroomPage::refreshPicker);
    refreshPicker();
}

void ClassroomPage::refreshPicker()
{
    std::vector<int> rows;
    for (int row = 0; row < runs_->rowCount(); ++row)
        if (runs_->isChecked(row) || runs_->record(row).id == liveRunId_)
            rows.push_back(row);
    std::stable_sort(rows.begin(), rows.end(), [this](int a, int b) {
        return runs_->record(a).started_at > runs_->record(b).started_at;
    });
    {
        const QSignalBlocker quiet(runPicker_);
        runPicker_->clear();
        for (int row : rows)
            runPicker_->addItem(runSwatch(runs_->color(row), runs_->isPast(row)),
                                runs_->displayLabel(row),
                                QString::fromStdString(runs_->record(row).id));
        const int shown = runPicker_->findData(QString::fromStdString(shownRunId_));
        runPicker_->setCurrentIndex(shown >= 0 ? shown : 0);
    }
    runPicker_->setVisible(!rows.empty());
    if (!rows.empty())
        showRun(runPicker_->currentData().toString().toStdString());
}

void ClassroomPage::showRun(const std::string& id)
{
    const int row = runs_ ? runs_->rowOf(id) : -1;
    if (row < 0 || id == shownRunId_)
        return;
    shownRunId_ = id;
    const dp::RunRecord record = runs_->labelledRecord(row);
    runPicker_->setCurrentIndex(runPicker_->findData(QString::fromStdString(id)));
    batchSplitView_->startRun(record.config.batch_size, int(record.config.devices.size()));
    predictionStrip_->clear();
    predictionStrip_->setClassNames(datasetMetadata(record.config.dataset).classNames);
    if (id == liveRunId_ && record.status == dp::RunStatus::running) {
        showHeading(QString::fromStdString(record.label()), runs_->color(row));
        return;
    }
    const std::optional<dp::StepReport> step = savedMeanStep(record);
    if (step)
        batchSplitView_->showStep(*step);
    showHeading(QString::fromStdString(record.label()), runs_->color(row),
                step ? tr("its mean step, from the saved timings")
                     : tr("no step timings saved"));
}

void ClassroomPage::showLiveStep(const dp::StepReport& report)
{
    if (shownRunId_ == liveRunId_)
        batchSplitView_->showStep(report);
}

void ClassroomPage::showLivePredictions(const dp::PredictionSamples& samples)
{
    if (shownRunId_ == liveRunId_)
        predictionStrip_->showPredictions(samples);
}

void ClassroomPage::showHeading(const QString& label, const QColor& color, const QString& note)
{
    runLabel_ = label;
    QString heading = tr("<span style=\"color:%1\">&#9632;</span> Run: <b>%2</b>")
                          .arg(color.name(), label.toHtmlEscaped());
    if (!note.isEmpty())
        heading += QStringLiteral(" · ") + note.toHtmlEscaped();
    runHeading_->setText(heading);
}

bool ClassroomPage::isSideBySide() const
{
    return sections_->direction() == QBoxLayout::LeftToRight;
}

void ClassroomPage::startRun(const dp::RunRecord& record, const QColor& color)
{
    liveRunId_ = record.id;
    shownRunId_ = record.id;
    if (runs_)
        refreshPicker();
    showHeading(QString::fromStdString(record.label()), color);
    batchSplitView_->startRun(record.config.batch_size, int(record.config.devices.size()));
    predictionStrip_->clear();
    predictionStrip_->setClassNames(datasetMetadata(record.config.dataset).classNames);
    const qsizetype classes = datasetMetadata(record.config.dataset).classNames.size();
    ringView_->setRun(QString::fromStdString(record.config.model), record.config.bucket_mb,
                      int(record.config.devices.size()), record.config.batch_size,
                      classes > 0 ? int(classes) : 10);
}

bool ClassroomPage::event(QEvent* event)
{
    if (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest)
        arrangeSections();
    return QWidget::event(event);
}

// Stacked when both sections fit the page's height at their preferred
// heights (the step view's comfortable rows, the strip's 72-pixel images);
// the decision rests on size hints only, so changing it cannot undo itself.
void ClassroomPage::arrangeSections()
{
    const QRect content = contentsRect().marginsRemoved(layout()->contentsMargins());
    const int stackedHeight = headingRow_->sizeHint().height() + layout()->spacing()
        + preferredHeight(*stepSection_, content.width()) + kSectionSpacing
        + preferredHeight(*predictionSection_, content.width());
    const auto direction =
        stackedHeight <= content.height() ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight;
    if (direction == sections_->direction())
        return;
    sections_->setDirection(direction);
    // Side by side, the timeline keeps the wider share for its bars.
    sections_->setStretchFactor(stepSection_, direction == QBoxLayout::LeftToRight ? 3 : 0);
    sections_->setStretchFactor(predictionSection_, direction == QBoxLayout::LeftToRight ? 2 : 1);
}
