#include "lesson_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

LessonBanner::LessonBanner(QWidget* parent) : QFrame(parent), text_(new QLabel)
{
    setObjectName(QStringLiteral("lessonBanner"));
    setFrameShape(QFrame::StyledPanel);
    // The colours of presenter mode's hints banner: a note to the class, not a result.
    setStyleSheet(QStringLiteral("#lessonBanner { background: #fff8e1; } #lessonBannerText { color: #5d4037; }"));
    text_->setObjectName(QStringLiteral("lessonBannerText"));
    text_->setWordWrap(true);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton;
    close->setObjectName(QStringLiteral("closeLessonBanner"));
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close the lesson's note; its runs go on"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 2, 2);
    layout->addWidget(text_, 1);
    layout->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void LessonBanner::showLesson(const QString& title, const QString& lookFor)
{
    title_ = title;
    text_->setText(tr("<b>Lesson: %1.</b> %2").arg(title.toHtmlEscaped(), lookFor.toHtmlEscaped()));
    show();
}

QString LessonBanner::text() const
{
    return text_->text();
}
