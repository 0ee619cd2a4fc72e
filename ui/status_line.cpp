#include "status_line.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>

namespace {

constexpr int kMaxLogLines = 10000;

}  // namespace

StatusLine::StatusLine(QObject* parent)
    : QObject(parent), label_(new QLabel), logView_(new QPlainTextEdit)
{
    label_->setObjectName(QStringLiteral("statusLabel"));
    logView_->setObjectName(QStringLiteral("logView"));
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    logView_->setReadOnly(true);
    logView_->setMaximumBlockCount(kMaxLogLines);
    logView_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    logView_->setPlaceholderText(tr("Engine log"));
}

QString StatusLine::text() const
{
    return label_->text();
}

void StatusLine::show(const QString& text, bool isError)
{
    label_->setText(text);
    label_->setStyleSheet(isError ? QStringLiteral("color: #c62828;") : QString());
}

void StatusLine::appendLog(const QString& line)
{
    logView_->appendPlainText(line);
}

void StatusLine::logSummaryOnce(const QString& summary, int epochsDone)
{
    // The engine logs its summary line itself once an epoch has finished.
    if (epochsDone == 0 && !summary.isEmpty())
        appendLog(summary);
}
