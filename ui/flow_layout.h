#pragma once

#include <QLayout>
#include <QList>
#include <QStyle>

#include <initializer_list>

// A row of controls that wraps onto further lines where the width is too
// short for all of them at their preferred widths (a 1024-pixel screen in
// presenter mode's large font), rather than squeezing a combo or a button
// below its text. Items keep their preferred sizes (an item wider than the
// whole width gets the width), left to right, each line as tall as its
// tallest item; the height follows the width (heightForWidth).
class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr);
    ~FlowLayout() override;

    // `widgets` side by side as one item that never splits across lines:
    // a field and the label that names it.
    void addGroup(std::initializer_list<QWidget*> widgets);

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    // The widest item: the lines wrap down to it.
    QSize minimumSize() const override;
    // Everything on one line.
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

private:
    // The space between items (PM_LayoutHorizontalSpacing) or lines (vertical): the
    // layout's spacing if set, else the style's.
    int gap(QStyle::PixelMetric metric) const;
    // Lays the items out in `rect` (moving them if `apply`); the height used.
    int arrange(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> items_;
};
