#include "comparison_summary_card.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

#include <cmath>

#include "engine_message.h"

namespace {

// The runs a card speaks through, by index: a repeated comparison (1, N, 1,
// N, ...) through each device count's last run, whose comparison carries the
// repeats' median and range.
std::vector<std::size_t> shownRuns(const std::vector<dp::RunRecord>& runs)
{
    std::vector<std::size_t> shown;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto same = std::find_if(shown.begin(), shown.end(), [&](std::size_t j) {
            return runs[j].device_count() == runs[i].device_count();
        });
        if (same == shown.end())
            shown.push_back(i);
        else
            *same = i;
    }
    return shown;
}

// "LeNet", from the run's settings label.
QString modelName(const dp::RunRecord& run)
{
    const std::string label = run.settings_label();
    return QString::fromStdString(label.substr(0, label.find(" · ")));
}

// "1 vs 2", the device counts of the shown runs.
QString deviceCounts(const std::vector<dp::RunRecord>& runs, const std::vector<std::size_t>& shown)
{
    QStringList counts;
    for (const std::size_t i : shown)
        counts << QString::number(runs[i].device_count());
    return counts.join(ComparisonSummaryCard::tr(" vs "));
}

// A comparison's speedup: its repeats' median, or its one run's figure.
double quotedSpeedup(const RunComparison& c)
{
    return c.repeated ? c.repeated->median : *c.speedup;
}

// "1.39× faster on 2 devices (1.19–1.76 over 3 repeats)": the speedup, its
// range and the word the range earns (dp::speedup_verdict), never dropped
// for room: a range that holds 1× says no measurable difference, whichever
// side the median fell on. The card's text says "per epoch" where the
// verdict line says "on N devices"; `emphasis` wraps the figure there.
QString speedClause(const RunComparison& c, const QString& where, const QString& emphasis = QStringLiteral("%1"))
{
    const double speedup = quotedSpeedup(c);
    const RepeatRange range = c.speedupRange.value_or(RepeatRange{speedup, speedup, speedup});
    QString spread;
    const bool ranged = dp::has_speedup_range(range.min, range.max);
    if (!ranged)
        spread = ComparisonSummaryCard::tr(" (one steady epoch a run: no spread to read; train 3 or more epochs)");
    else if (c.repeated)
        spread = ComparisonSummaryCard::tr(" (%1–%2 over %3 repeats)")
                     .arg(range.min, 0, 'f', 2)
                     .arg(range.max, 0, 'f', 2)
                     .arg(c.repeated->repeats);
    else if (c.speedupRange)
        spread = ComparisonSummaryCard::tr(" (%1–%2 from the steady epochs)")
                     .arg(range.min, 0, 'f', 2)
                     .arg(range.max, 0, 'f', 2);
    const QString figure = QStringLiteral("%1×").arg(speedup, 0, 'f', 2);
    switch (dp::speedup_verdict(range.min, range.max)) {
    case dp::SpeedupVerdict::faster:
        return ComparisonSummaryCard::tr("%1 %2%3")
            .arg(emphasis.arg(ComparisonSummaryCard::tr("%1 faster").arg(figure)), where, spread);
    case dp::SpeedupVerdict::slower:
        // The word first: an elided line keeps it.
        return ComparisonSummaryCard::tr("%1: %2 1 device's speed %3%4")
            .arg(emphasis.arg(ComparisonSummaryCard::tr("slower")), figure, where, spread);
    case dp::SpeedupVerdict::too_few_epochs:
        return ComparisonSummaryCard::tr("%1 %2 (%3%4)")
            .arg(emphasis.arg(ComparisonSummaryCard::tr("too few epochs to tell")), where, figure,
                 QStringLiteral(", ") + spread.chopped(1).mid(2));
    case dp::SpeedupVerdict::no_measurable_difference:
        break;
    }
    return ComparisonSummaryCard::tr("%1 %2 (%3%4: the range holds 1×)")
        .arg(emphasis.arg(ComparisonSummaryCard::tr("no measurable difference")), where, figure,
             spread.isEmpty() ? QString() : QStringLiteral(", ") + spread.chopped(1).mid(2));
}

// The size of the weights' drift from 1 device's, in words: rounding only,
// slightly apart, apart, or far apart (a 90% difference is not "slight").
QString driftMeaning(double drift, double accuracyGap)
{
    const QString accuracies = accuracyGap < 0.01
                                   ? ComparisonSummaryCard::tr("their test accuracies agree")
                                   : ComparisonSummaryCard::tr("their test accuracies differ by %1")
                                         .arg(accuracyGap, 0, 'f', 3);
    if (drift < 1e-3)
        return ComparisonSummaryCard::tr("float rounding only");
    if (drift < 0.05)
        return ComparisonSummaryCard::tr("the runs took slightly different paths (float rounding, "
                                         "amplified by training); %1")
            .arg(accuracies);
    if (drift < 0.3)
        return ComparisonSummaryCard::tr("the runs took different paths (float rounding, amplified "
                                         "by training); %1")
            .arg(accuracies);
    return ComparisonSummaryCard::tr("the runs ended far apart, as different trainings do (float "
                                     "rounding, amplified by training); %1")
        .arg(accuracies);
}

}  // namespace

ComparisonSummaryCard::ComparisonSummaryCard(QWidget* parent)
    : QFrame(parent), text_(new QLabel), verdictLine_(new QLabel), collapse_(new QToolButton)
{
    setObjectName(QStringLiteral("comparisonSummaryCard"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::AlternateBase);
    text_->setObjectName(QStringLiteral("comparisonSummaryText"));
    text_->setWordWrap(true);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton;
    close->setObjectName(QStringLiteral("closeComparisonSummary"));
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close the summary; the runs table keeps the numbers"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    collapse_->setObjectName(QStringLiteral("collapseComparisonSummary"));
    collapse_->setAutoRaise(true);
    connect(collapse_, &QToolButton::clicked, this, [this] { setCollapsed(!collapsed_); });
    verdictLine_->setObjectName(QStringLiteral("comparisonVerdictLine"));
    QFont bold = verdictLine_->font();
    bold.setBold(true);
    verdictLine_->setFont(bold);
    verdictLine_->setMinimumWidth(1);  // elided to the card's width, never holding it wider
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(collapse_, 0, Qt::AlignTop);
    layout->addWidget(text_, 1);
    layout->addWidget(verdictLine_, 1);
    layout->addWidget(close, 0, Qt::AlignTop);
    // One line by default: the charts keep the height; ▸ opens the rest.
    setCollapsed(true);
    hide();
}

void ComparisonSummaryCard::showComparison(const std::vector<dp::RunRecord>& runs,
                                           const std::vector<RunComparison>& comparisons)
{
    text_->setText(summaryText(runs, comparisons));
    verdict_ = verdictText(runs, comparisons);
    showVerdictLine();
    show();
}

void ComparisonSummaryCard::setCollapsed(bool collapsed)
{
    collapsed_ = collapsed;
    text_->setVisible(!collapsed);
    verdictLine_->setVisible(collapsed);
    collapse_->setText(collapsed ? QStringLiteral("▸") : QStringLiteral("▾"));
    collapse_->setToolTip(collapsed ? tr("Show the whole summary") : tr("Show only the verdict"));
}

void ComparisonSummaryCard::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    showVerdictLine();
}

void ComparisonSummaryCard::showVerdictLine()
{
    const int room = std::max(1, verdictLine_->width());
    verdictLine_->setText(verdictLine_->fontMetrics().elidedText(verdict_, Qt::ElideRight, room));
    verdictLine_->setToolTip(verdictLine_->text() == verdict_ ? QString() : verdict_);
}

QString ComparisonSummaryCard::verdictText(const std::vector<dp::RunRecord>& runs,
                                           const std::vector<RunComparison>& comparisons)
{
    if (runs.empty())
        return {};
    const std::vector<std::size_t> shown = shownRuns(runs);
    QStringList speeds;
    for (const std::size_t i : shown) {
        if (i == shown.front())
            continue;
        const RunComparison& c = comparisons[i];
        const int devices = int(runs[i].config.devices.size());
        if (!c.speedup) {
            speeds << tr("no speedup on %1 devices").arg(devices);
            continue;
        }
        speeds << speedClause(c, tr("on %1 devices").arg(devices));
    }
    QString line = tr("%1, %2 devices: %3")
                           .arg(modelName(runs.front()), deviceCounts(runs, shown),
                                speeds.join(QStringLiteral("; ")));
    if (std::any_of(runs.begin(), runs.end(), [](const dp::RunRecord& run) { return run.busy; }))
        line += tr(" (machine busy: not trusted)");
    return line;
}

QString ComparisonSummaryCard::text() const
{
    return text_->text();
}

QString ComparisonSummaryCard::summaryText(const std::vector<dp::RunRecord>& runs,
                                           const std::vector<RunComparison>& comparisons)
{
    if (runs.empty())
        return {};
    const std::vector<std::size_t> shown = shownRuns(runs);
    QString text = tr("<b>Comparison done: %1 on %2 devices.</b>")
                       .arg(modelName(runs.front()), deviceCounts(runs, shown));
    for (const std::size_t i : shown) {
        if (i == shown.front())
            continue;
        const RunComparison& c = comparisons[i];
        const int devices = int(runs[i].config.devices.size());
        if (!c.speedup || !c.efficiency) {
            text += tr(" %1 devices: no speedup (%2).")
                        .arg(devices)
                        .arg(QString::fromStdString(c.noBaselineReason.empty() ? "no finished epoch"
                                                                               : c.noBaselineReason));
            continue;
        }
        // The median and range (of the repeats, or of one run's steady epochs), and the word they earn.
        text += tr(" %1 devices: %2, %3% scaling efficiency")
                    .arg(devices)
                    .arg(speedClause(c, tr("per epoch"), QStringLiteral("<b>%1</b>")))
                    .arg((c.repeatedEfficiency ? c.repeatedEfficiency->median : *c.efficiency) * 100, 0, 'f', 0);
        text += c.scaling == MeasuredScaling::weak
                    ? tr(" (weak scaling: batch and lr grew with the devices, each device's share "
                         "unchanged).")
                    : c.scaling == MeasuredScaling::strong ? tr(" (strong scaling: the same global batch).")
                                            : QStringLiteral(".");
    }
    // A timing taken while other processes took cores says little.
    if (std::any_of(runs.begin(), runs.end(), [](const dp::RunRecord& run) { return run.busy; }))
        text += tr(" <i>Measured while the machine was busy (other processes took cores): the "
                   "speedups are not trusted; run the comparison again on an idle machine.</i>");
    QStringList accuracies;
    for (const std::size_t i : shown)
        accuracies << tr("%1 on %2").arg(comparisons[i].finalTestAcc, 0, 'f', 3)
                          .arg(runs[i].config.devices.size());
    text += tr(" Test accuracy: %1.").arg(accuracies.join(QStringLiteral(", ")));
    // The last epoch's drift of the N-device runs from the 1-device one (same
    // global batch only). A large drift is no fault: SGD amplifies the
    // rounding of sums taken in another order, step by step (over one LeNet
    // epoch, 1e-7 grows past 1e-2 on one CPU alike), so it is worded as
    // paths, and "diverged" stays for a run that blew up (NaN).
    for (const std::size_t i : shown)
        if (i != shown.front() && !runs[i].epochs.empty()
            && std::isfinite(runs[i].epochs.back().parameter_drift)) {
            const double drift = runs[i].epochs.back().parameter_drift;
            const double accuracyGap =
                std::abs(comparisons[i].finalTestAcc - comparisons[shown.front()].finalTestAcc);
            const QString meaning = driftMeaning(drift, accuracyGap);
            text += tr(" Weights on %1 devices differ from 1 device's by %2 (relative): %3.")
                        .arg(runs[i].config.devices.size())
                        .arg(drift, 0, 'g', 2)
                        .arg(meaning);
        }
    // Why each N-device run is not N times faster: the largest part of its
    // gap (or, at or beyond N times, that there is none).
    for (const std::size_t i : shown)
        if (const std::optional<dp::SpeedupGap>& gap = comparisons[i].gap) {
            const QString verdict = engineMessage(gap->verdict()).toHtmlEscaped();
            text += gap->gap() > 0 && !gap->within_noise() ? tr("<br><b>Why not %1× faster on %1 devices:</b> %2.")
                                         .arg(gap->devices)
                                         .arg(verdict)
                                   : tr("<br><b>%1</b>.").arg(verdict.left(1).toUpper() + verdict.mid(1));
        }
    return text;
}
