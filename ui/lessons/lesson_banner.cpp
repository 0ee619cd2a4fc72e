#include "lesson_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

LessonBanner::LessonBanner(QWidget* parent) : QFrame(parent), text_(new QLabel), note_(new QLabel)
{
    setObjectName(QStringLiteral("lessonBanner"));
    setFrameShape(QFrame::StyledPanel);
    // The colours of presenter mode's hints banner: a note to the class, not a
    // result; the note on the result in the error red, as it contradicts the lesson.
    setStyleSheet(QStringLiteral("#lessonBanner { background: #fff8e1; } #lessonBannerText { color: #5d4037; }"
                                 " #lessonBannerNote { color: #c62828; }"));
    text_->setObjectName(QStringLiteral("lessonBannerText"));
    note_->setObjectName(QStringLiteral("lessonBannerNote"));
    for (QLabel* label : {text_, note_}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    note_->setTextFormat(Qt::PlainText);
    note_->hide();
    auto* close = new QToolButton;
    close->setObjectName(QStringLiteral("closeLessonBanner"));
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close the lesson's note; its runs go on"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto* texts = new QVBoxLayout;
    texts->setContentsMargins(0, 0, 0, 0);
    texts->addWidget(text_);
    texts->addWidget(note_);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 2, 2);
    layout->addLayout(texts, 1);
    layout->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void LessonBanner::showLesson(const QString& title, const QString& lookFor)
{
    title_ = title;
    text_->setText(tr("<b>Lesson: %1.</b> %2").arg(title.toHtmlEscaped(), lookFor.toHtmlEscaped()));
    note_->clear();
    note_->hide();
    show();
}

void LessonBanner::showNote(const QString& note)
{
    note_->setText(note);
    note_->show();
    show();
}

QString LessonBanner::text() const
{
    return text_->text();
}

QString LessonBanner::note() const
{
    return note_->text();
}
