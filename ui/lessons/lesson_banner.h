#pragma once

#include <QFrame>

class QLabel;

// Above the charts while a lesson's runs go: the lesson's title and what to
// look for. Closed with its × button, or by a run that is not the lesson's.
class LessonBanner : public QFrame {
    Q_OBJECT

public:
    explicit LessonBanner(QWidget* parent = nullptr);

    void showLesson(const QString& title, const QString& lookFor);
    QString title() const { return title_; }
    // The banner's text (rich text).
    QString text() const;

private:
    QLabel* text_;
    QString title_;
};
