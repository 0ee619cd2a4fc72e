#include "classroom_page.h"

#include <QBoxLayout>
#include <QEvent>
#include <QLabel>

#include "batch_split_view.h"
#include "dataset_metadata.h"
#include "prediction_strip.h"

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

}  // namespace

ClassroomPage::ClassroomPage(QWidget* parent)
    : QWidget(parent),
      runHeading_(new QLabel(tr("No run yet: start one to watch its steps here"))),
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
      sections_(new QBoxLayout(QBoxLayout::TopToBottom))
{
    setObjectName(QStringLiteral("classroomPage"));
    runHeading_->setObjectName(QStringLiteral("classroomRunHeading"));
    runHeading_->setTextFormat(Qt::RichText);

    sections_->setSpacing(kSectionSpacing);
    sections_->addWidget(stepSection_);
    sections_->addWidget(predictionSection_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(runHeading_);
    layout->addLayout(sections_, 1);
}

bool ClassroomPage::isSideBySide() const
{
    return sections_->direction() == QBoxLayout::LeftToRight;
}

void ClassroomPage::startRun(const dp::RunRecord& record, const QColor& color)
{
    runLabel_ = QString::fromStdString(record.label());
    runHeading_->setText(tr("<span style=\"color:%1\">&#9632;</span> Run: <b>%2</b>")
                             .arg(color.name(), runLabel_.toHtmlEscaped()));
    batchSplitView_->startRun(record.config.batch_size, int(record.config.devices.size()));
    predictionStrip_->clear();
    predictionStrip_->setClassNames(datasetMetadata(record.config.dataset).classNames);
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
    const int stackedHeight = runHeading_->sizeHint().height() + layout()->spacing()
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
