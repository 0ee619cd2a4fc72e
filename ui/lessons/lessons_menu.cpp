#include "lessons_menu.h"

#include <QCoreApplication>

#include "lesson_table.h"

LessonsMenu::LessonsMenu(QWidget* parent) : QMenu(tr("&Lessons"), parent)
{
    setObjectName(QStringLiteral("lessonsMenu"));
    setToolTipsVisible(true);
    for (const Lesson& lesson : lessons()) {
        const QString name = QString::fromLatin1(lesson.name);
        QAction* action = addAction(QCoreApplication::translate("Lessons", lesson.title),
                                    this, [this, name] { emit lessonChosen(name); });
        action->setObjectName(QStringLiteral("lesson:") + name);
        action->setData(name);
        const QString lookFor = QCoreApplication::translate("Lessons", lesson.lookFor);
        action->setToolTip(lookFor);
        action->setStatusTip(lookFor);
    }
}
