#pragma once

#include <QScrollArea>

// A frameless scroll area that scrolls its content up and down, never
// sideways: it is at least as wide as the content's minimum (a rich-text
// table, a long word, a caption's least width) and follows it as the text or
// the font (presenter mode) changes, so its layout gives it that width
// rather than cut the content's right edge off.
class VerticalScrollArea : public QScrollArea {
public:
    explicit VerticalScrollArea(QWidget* content, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;

protected:
    // The content asks for another size (new text, a new font): so does the area.
    bool viewportEvent(QEvent* event) override;
};
