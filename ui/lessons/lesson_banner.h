#pragma once

#include <QFrame>

class QLabel;

// Above the charts while a lesson's runs go: the lesson's title and what to
// look for, and once its runs end, a note where they contradict it.
// Closed with its × button, or by a run that is not the lesson's.
class LessonBanner : public QFrame {
    Q_OBJECT

public:
    explicit LessonBanner(QWidget* parent = nullptr);

    // Shows the lesson's sentence, without the last lesson's note.
    void showLesson(const QString& title, const QString& lookFor);
    // Shows `note` (plain text) under the sentence: what the runs measured against it (lesson_result_note.h).
    void showNote(const QString& note);
    QString title() const { return title_; }
    // The banner's text (rich text).
    QString text() const;
    // The note shown under it; empty when none.
    QString note() const;

private:
    QLabel* text_;
    QLabel* note_;
    QString title_;
};
