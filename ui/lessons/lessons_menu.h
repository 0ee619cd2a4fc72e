#pragma once

#include <QMenu>

// The menu bar's Lessons menu: an item per lesson (lesson_table.h), whose
// tooltip and status tip say what to look for. Choosing one asks the window
// to start it.
class LessonsMenu : public QMenu {
    Q_OBJECT

public:
    explicit LessonsMenu(QWidget* parent = nullptr);

signals:
    // `name` is the lesson's Lesson::name.
    void lessonChosen(const QString& name);
};
