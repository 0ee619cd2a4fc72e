#include "field_note.h"

FieldNote::FieldNote(const QString& objectName, QWidget* parent) : QLabel(parent)
{
    setObjectName(objectName);
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    // Paths and numbers in a note are worth copying into a terminal.
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    hide();
}

void FieldNote::setNote(const QString& text, Kind kind)
{
    kind_ = kind;
    // Red as the status line's errors; a hint in dark amber, which reads as
    // advice rather than failure.
    setStyleSheet(kind == Kind::problem ? QStringLiteral("color: #c62828;")
                                        : QStringLiteral("color: #9a6700;"));
    setText(text);
    setVisible(!text.isEmpty());
}

void FieldNote::clearNote()
{
    clear();
    hide();
}
