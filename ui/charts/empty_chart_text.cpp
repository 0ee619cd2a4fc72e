#include "empty_chart_text.h"

#include <QChart>
#include <QChartView>
#include <QEvent>

#include "vocabulary.h"

EmptyChartText::EmptyChartText(QChartView* chart) : QLabel(chart->viewport()), chart_(chart)
{
    setObjectName(QStringLiteral("emptyChartText"));
    setAlignment(Qt::AlignCenter);
    setWordWrap(true);
    setAttribute(Qt::WA_TransparentForMouseEvents);  // the chart's hover and zoom go on under it
    setForegroundRole(QPalette::PlaceholderText);
    followChartFont();
    chart->viewport()->installEventFilter(this);
    connect(chart->chart(), &QChart::plotAreaChanged, this, &EmptyChartText::place);
    hide();
}

void EmptyChartText::setMessage(const QString& text)
{
    setText(text);
    setVisible(!text.isEmpty());
    place();
}

QString EmptyChartText::startTraining(const QString& model, const QString& data,
                                      std::optional<double> seconds)
{
    if (!seconds)
        return tr("Press Start to train %1 on %2").arg(model, data);
    return tr("Press Start to train %1 on %2: %3 on this machine")
        .arg(model, data, vocabulary::aboutDuration(*seconds));
}

QString EmptyChartText::checkRuns()
{
    return tr("Check runs below to draw them");
}

bool EmptyChartText::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == chart_->viewport() && event->type() == QEvent::Resize)
        place();
    if (watched == chart_->viewport() && event->type() == QEvent::FontChange)
        followChartFont();
    return QLabel::eventFilter(watched, event);
}

void EmptyChartText::followChartFont()
{
    QFont larger = chart_->viewport()->font();
    larger.setPointSizeF(larger.pointSizeF() * 1.15);
    setFont(larger);
}

void EmptyChartText::place()
{
    const QRectF plot = chart_->chart()->mapRectToScene(chart_->chart()->plotArea());
    QRect area = chart_->mapFromScene(plot).boundingRect();
    if (area.width() < 100)  // not laid out yet: the whole view
        area = chart_->viewport()->rect();
    setGeometry(area.adjusted(8, 8, -8, -8));
}
