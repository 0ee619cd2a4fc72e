#pragma once

// Text a reader can read, for the GUI tests: every text a window shows on
// screen at least a floor of pixels tall (12 px, 16 px in presenter mode),
// and none clipped. textProblems() walks the window's visible widgets and
// says, one line each, which text is smaller than the floor (widgets' fonts,
// table cells' fonts, the charts' titles, legends and axis labels, and every
// text as painted, rich text's own sizes included) and which is clipped: a label, button,
// combo or field squeezed below its minimum size or narrower than its text,
// a wrapped label shorter than its lines, a Qt Charts label elided to "...",
// or a text widget lying partly outside a widget that holds it (a scroll
// area scrolled, a page cut off), unless that scroll area is one the test
// names as allowed to scroll. Text a widget paints itself (the ring, the
// waterfall, the step timeline, the charts' keys) is checked as painted:
// each widget is rendered once onto a device that records every text's size.

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFontInfo>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QList>
#include <QProgressBar>
#include <QScrollBar>
#include <QStringList>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QValueAxis>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace text_floor {

// A font's height in pixels as the screen draws it.
inline int pixelSize(const QFont& font)
{
    return QFontInfo(font).pixelSize();
}

// How a widget is named in a report: its object name and class, its text's start.
inline QString describe(const QWidget& widget, const QString& text = {})
{
    QString name = widget.objectName().isEmpty() ? QStringLiteral("(unnamed)") : widget.objectName();
    name += QStringLiteral(" (%1)").arg(QString::fromUtf8(widget.metaObject()->className()));
    if (!text.isEmpty())
        name += QStringLiteral(" \"%1\"").arg(text.simplified().left(40));
    return name;
}

// Why `widget`'s text does not fit it, or empty.
inline QString clippedText(const QWidget& widget)
{
    const QSize size = widget.size();
    const auto squeezed = [&widget, size](const QString& text) -> QString {
        const QSize least = widget.minimumSizeHint();
        if (least.width() > size.width() || least.height() > size.height())
            return QStringLiteral("%1 is %2x%3, its text needs %4x%5")
                .arg(describe(widget, text))
                .arg(size.width())
                .arg(size.height())
                .arg(least.width())
                .arg(least.height());
        return {};
    };
    if (const auto* label = qobject_cast<const QLabel*>(&widget)) {
        if (label->text().isEmpty())
            return {};
        if (label->wordWrap()) {
            const int needed = label->heightForWidth(size.width());
            if (needed > size.height())
                return QStringLiteral("%1 is %2 px tall, its lines need %3")
                    .arg(describe(widget, label->text()))
                    .arg(size.height())
                    .arg(needed);
            // What no wrapping narrows (a rich-text table, a long word) runs past its right edge.
            const int widest = label->minimumSizeHint().width();
            if (widest > size.width())
                return QStringLiteral("%1 is %2 px wide, its text needs %3")
                    .arg(describe(widget, label->text()))
                    .arg(size.width())
                    .arg(widest);
            return {};
        }
        return squeezed(label->text());
    }
    if (const auto* button = qobject_cast<const QAbstractButton*>(&widget))
        return button->text().isEmpty() ? QString() : squeezed(button->text());
    if (const auto* combo = qobject_cast<const QComboBox*>(&widget)) {
        if (const QString problem = squeezed(combo->currentText()); !problem.isEmpty())
            return problem;
        // A combo that shrinks below its items (AdjustToMinimumContentsLength)
        // cuts its current text short: Qt 6 neither elides nor wraps it.
        QStyleOptionComboBox option;
        option.initFrom(combo);
        option.editable = combo->isEditable();
        option.frame = combo->hasFrame();
        option.currentText = combo->currentText();
        option.subControls = QStyle::SC_All;
        const QRect field =
            combo->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, combo);
        int room = field.width() - 2;
        if (!combo->itemIcon(combo->currentIndex()).isNull())
            room -= combo->iconSize().width() + 4;
        const int needed = combo->fontMetrics().horizontalAdvance(combo->currentText());
        if (needed > room)
            return QStringLiteral("%1 shows %2 px of its %3 px text")
                .arg(describe(widget, combo->currentText()))
                .arg(room)
                .arg(needed);
        return {};
    }
    if (const auto* field = qobject_cast<const QLineEdit*>(&widget)) {
        // A spin box's field: its prefix and value; 2 px each side are the field's own margin.
        const QMargins margins = field->textMargins();
        const int room = field->contentsRect().width() - margins.left() - margins.right() - 4;
        const int needed = field->fontMetrics().horizontalAdvance(field->displayText());
        if (!field->displayText().isEmpty() && needed > room)
            return QStringLiteral("%1 shows %2 px of its %3 px text")
                .arg(describe(widget, field->displayText()))
                .arg(room)
                .arg(needed);
        return {};
    }
    if (qobject_cast<const QAbstractSpinBox*>(&widget))
        return squeezed({});
    if (const auto* group = qobject_cast<const QGroupBox*>(&widget)) {
        const int needed = group->fontMetrics().horizontalAdvance(group->title());
        if (needed > size.width())
            return QStringLiteral("%1 is %2 px wide, its title %3").arg(describe(widget, group->title())).arg(size.width()).arg(needed);
        return {};
    }
    if (const auto* bar = qobject_cast<const QProgressBar*>(&widget)) {
        const int needed = bar->fontMetrics().horizontalAdvance(bar->text());
        if (bar->isTextVisible() && needed > bar->contentsRect().width())
            return QStringLiteral("%1 is %2 px wide, its text %3").arg(describe(widget, bar->text())).arg(size.width()).arg(needed);
    }
    return {};
}

// A paint engine that draws nothing and notes each text painted through it,
// with its height in pixels on a screen of `dpi`.
class TextSizeEngine : public QPaintEngine {
public:
    explicit TextSizeEngine(int dpi) : QPaintEngine(QPaintEngine::AllFeatures), dpi_(dpi) {}

    std::vector<std::pair<QString, double>> texts;

    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState&) override {}
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawPath(const QPainterPath&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawTextItem(const QPointF&, const QTextItem& item) override
    {
        const QFont font = item.font();
        const double pixels = font.pixelSize() > 0 ? font.pixelSize() : font.pointSizeF() * dpi_ / 72.0;
        // A scaled painter (an exported picture) draws it larger or smaller.
        const double scale = std::sqrt(std::abs(state->transform().determinant()));
        texts.emplace_back(item.text(), pixels * scale);
    }
    Type type() const override { return QPaintEngine::User; }

private:
    int dpi_;
};

// A paint device of a widget's size and resolution on which it paints into a TextSizeEngine.
class TextSizeRecorder : public QPaintDevice {
public:
    explicit TextSizeRecorder(const QWidget& widget) : size_(widget.size()), dpi_(widget.logicalDpiY()), engine_(dpi_) {}

    QPaintEngine* paintEngine() const override { return &engine_; }
    const std::vector<std::pair<QString, double>>& texts() const { return engine_.texts; }

protected:
    int metric(PaintDeviceMetric metric) const override
    {
        switch (metric) {
        case PdmWidth:
            return size_.width();
        case PdmHeight:
            return size_.height();
        case PdmWidthMM:
            return size_.width() * 254 / (10 * dpi_);
        case PdmHeightMM:
            return size_.height() * 254 / (10 * dpi_);
        case PdmDepth:
            return 32;
        case PdmNumColors:
            return std::numeric_limits<int>::max();
        case PdmDevicePixelRatio:
            return 1;
        case PdmDevicePixelRatioScaled:
            return int(QPaintDevice::devicePixelRatioFScale());
        default:  // the resolutions
            return dpi_;
        }
    }

private:
    QSize size_;
    int dpi_;
    mutable TextSizeEngine engine_;
};

// Each text `widget` paints itself (not its children) smaller than `floor`.
inline void checkPaintedText(QWidget& widget, int floor, QStringList& problems)
{
    if (widget.size().isEmpty())
        return;
    TextSizeRecorder recorder(widget);
    widget.render(&recorder, QPoint(), QRegion(), QWidget::RenderFlags());
    for (const auto& [text, pixels] : recorder.texts()) {
        // Rounded as QFontInfo rounds a font's size.
        if (std::lround(pixels) < floor && !text.trimmed().isEmpty())
            problems << QStringLiteral("%1 paints \"%2\" at %3 px")
                            .arg(describe(widget), text.simplified().left(30))
                            .arg(pixels, 0, 'f', 1);
    }
}

// Whether `widget` shows text whose place on screen matters.
inline bool showsText(const QWidget& widget)
{
    if (const auto* label = qobject_cast<const QLabel*>(&widget))
        return !label->text().isEmpty();
    if (const auto* button = qobject_cast<const QAbstractButton*>(&widget))
        return !button->text().isEmpty();
    return qobject_cast<const QComboBox*>(&widget) || qobject_cast<const QLineEdit*>(&widget)
        || qobject_cast<const QGroupBox*>(&widget) || qobject_cast<const QProgressBar*>(&widget);
}

// The widget holding `widget` that cuts part of it off (a scroll area's
// viewport scrolled, a page too small), or empty. A viewport of `mayScroll`
// may cut it off above and below, where a scroll bar reaches the rest; at
// its sides only while it shows a horizontal scroll bar.
inline QString cutOffBy(const QWidget& widget, const QWidget& window, const QList<const QAbstractScrollArea*>& mayScroll)
{
    for (const QWidget* holder = widget.parentWidget(); holder && holder != window.parentWidget();
         holder = holder->parentWidget()) {
        const auto scrolling = std::find_if(mayScroll.begin(), mayScroll.end(), [holder](const QAbstractScrollArea* area) {
            return area->viewport() == holder;
        });
        const QRect inHolder(widget.mapTo(holder, QPoint(0, 0)), widget.size());
        // A pixel of slack: layouts round.
        const QRect room = holder->rect().adjusted(-1, -1, 1, 1);
        if (scrolling != mayScroll.end()) {
            if ((*scrolling)->horizontalScrollBar()->isVisible()
                || (inHolder.left() >= room.left() && inHolder.right() <= room.right()))
                return {};
            return QStringLiteral("%1 runs %2 px past the sides of %3, which scrolls only up and down")
                .arg(describe(widget))
                .arg(std::max(room.left() - inHolder.left(), inHolder.right() - room.right()))
                .arg(describe(**scrolling));
        }
        if (!room.contains(inHolder)) {
            const QWidget* named = holder;
            while (named->objectName().isEmpty() && named->parentWidget())
                named = named->parentWidget();
            return QStringLiteral("%1 at %2,%3 %4x%5 lies partly outside %6")
                .arg(describe(widget))
                .arg(inHolder.x())
                .arg(inHolder.y())
                .arg(inHolder.width())
                .arg(inHolder.height())
                .arg(describe(*named));
        }
    }
    return {};
}

// The texts of a chart view's scene smaller than `floor`, or elided to "..."
// by Qt Charts (axis labels and titles that found no room).
inline void checkChartView(const QChartView& view, int floor, QStringList& problems)
{
    const auto small = [&](const QFont& font, const QString& what) {
        if (pixelSize(font) < floor)
            problems << QStringLiteral("%1: %2 is %3 px").arg(describe(view), what).arg(pixelSize(font));
    };
    const QChart* chart = view.chart();
    if (!chart->title().isEmpty())
        small(chart->titleFont(), QStringLiteral("the title"));
    if (chart->legend()->isVisible() && !chart->legend()->markers().isEmpty())
        small(chart->legend()->font(), QStringLiteral("the legend"));
    for (const QAbstractAxis* axis : chart->axes()) {
        if (!axis->isVisible())
            continue;
        if (axis->labelsVisible())
            small(axis->labelsFont(), QStringLiteral("an axis's labels"));
        if (axis->isTitleVisible() && !axis->titleText().isEmpty())
            small(axis->titleFont(), QStringLiteral("the axis title \"%1\"").arg(axis->titleText()));
    }
    for (const QGraphicsItem* item : view.scene()->items()) {
        if (!item->isVisible())
            continue;
        QString text;
        QFont font;
        if (const auto* rich = dynamic_cast<const QGraphicsTextItem*>(item)) {
            text = rich->toPlainText();
            font = rich->font();
        } else if (const auto* simple = dynamic_cast<const QGraphicsSimpleTextItem*>(item)) {
            text = simple->text();
            font = simple->font();
        } else {
            continue;
        }
        if (text.trimmed().isEmpty())
            continue;
        small(font, QStringLiteral("\"%1\"").arg(text.left(30)));
        if (text.endsWith(QLatin1String("...")))
            problems << QStringLiteral("%1: \"%2\" elided (no room for it)").arg(describe(view), text);
    }
}

// Every text of `window`'s visible widgets smaller than `floor` pixels or
// clipped, one line each; empty when all are whole and large enough. Text
// inside the viewports of `mayScroll` may lie beyond them: the test asserts
// that they scroll instead.
inline QStringList textProblems(QWidget& window, int floor, const QList<const QAbstractScrollArea*>& mayScroll = {})
{
    QStringList problems;
    QList<QWidget*> widgets{&window};
    for (QWidget* child : window.findChildren<QWidget*>())
        widgets << child;
    for (QWidget* widget : widgets) {
        if (!widget->isVisible())
            continue;
        checkPaintedText(*widget, floor, problems);
        // The widget's own font: what it draws, or what its children inherit.
        if (pixelSize(widget->font()) < floor)
            problems << QStringLiteral("%1: %2 px text").arg(describe(*widget)).arg(pixelSize(widget->font()));
        if (const auto* view = qobject_cast<const QAbstractItemView*>(widget); view && view->model()) {
            // The rows in view: a cell's own font, if its model gives one.
            const QAbstractItemModel& model = *view->model();
            for (int row = 0; row < std::min(model.rowCount(view->rootIndex()), 50); ++row) {
                for (int column = 0; column < model.columnCount(view->rootIndex()); ++column) {
                    const QVariant font = model.index(row, column, view->rootIndex()).data(Qt::FontRole);
                    if (font.isValid() && pixelSize(font.value<QFont>()) < floor)
                        problems << QStringLiteral("%1: cell %2,%3 is %4 px")
                                        .arg(describe(*view))
                                        .arg(row)
                                        .arg(column)
                                        .arg(pixelSize(font.value<QFont>()));
                }
            }
        }
        if (const auto* chart = qobject_cast<const QChartView*>(widget))
            checkChartView(*chart, floor, problems);
        if (!showsText(*widget))
            continue;
        if (const QString clipped = clippedText(*widget); !clipped.isEmpty())
            problems << clipped;
        if (const QString cut = cutOffBy(*widget, window, mayScroll); !cut.isEmpty())
            problems << cut;
    }
    return problems;
}

}  // namespace text_floor
