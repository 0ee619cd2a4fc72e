#pragma once

#include <QObject>
#include <QString>

#include "config/config_fields.h"

class QWidget;

// The editor of one setting, made from its schema row alone (as Qt Creator
// makes a settings page's widgets from its aspects): a spin box for a whole
// number, a decimal spin box for a real one, a check box for a boolean, a
// list for text with choices (dp::field_choices), a line for other text.
// Its minimum and tooltip come from the row too, so a setting added to the
// schema appears in the panel without a line of ui/ code.
class SettingEditor : public QObject {
    Q_OBJECT

public:
    SettingEditor(const dp::ConfigField& field, QWidget* parent);

    const dp::ConfigField& field() const { return field_; }
    QWidget* widget() const { return widget_; }

    // Shows the setting's value in `config`.
    void read(const dp::TrainConfig& config);
    // Sets the setting in `config` to what the editor shows.
    void write(dp::TrainConfig& config) const;
    // The value as the editor shows it, for notes that quote it.
    QString shownText() const;

signals:
    void changed();

private:
    QWidget* createWidget(QWidget* parent);

    const dp::ConfigField& field_;
    QWidget* widget_;
};
