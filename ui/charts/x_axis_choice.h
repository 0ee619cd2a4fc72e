#pragma once

#include <QList>
#include <QObject>

#include "x_axis_mode.h"

class QAction;
class QActionGroup;
class QComboBox;
class QSettings;

// The x axis every chart counts (epoch, optimizer step or training seconds):
// three exclusive View-menu actions and any number of combos beside the
// charts, kept in step with each other.
class XAxisChoice : public QObject {
    Q_OBJECT

public:
    explicit XAxisChoice(QObject* parent = nullptr);

    // In the View menu's order: epoch, step, seconds (Ctrl+T).
    QList<QAction*> actions() const;
    // A combo ("x: epoch", "x: step", "x: seconds") that follows and sets the choice.
    QComboBox* makeCombo();

    XAxisMode mode() const { return mode_; }
    // Emits modeChanged when the mode changes.
    void setMode(XAxisMode mode);

    // The mode `settings` remember: "view/x_axis", else a setting from
    // before steps, "view/seconds_axis" (true: seconds), else epochs.
    static XAxisMode remembered(const QSettings& settings);
    static void remember(QSettings& settings, XAxisMode mode);

signals:
    void modeChanged(XAxisMode mode);

private:
    QActionGroup* group_;
    XAxisMode mode_ = XAxisMode::epochs;
};
