#pragma once

#include <QLabel>

#include "settings_check.h"

// The line under a settings field that says what is wrong with it (red:
// the run cannot start) or what to expect from it (a hint: it runs, but
// will disappoint). Hidden while there is nothing to say.
class FieldNote : public QLabel {
    Q_OBJECT

public:
    using Kind = SettingsNote::Kind;

    explicit FieldNote(const QString& objectName, QWidget* parent = nullptr);

    void setNote(const QString& text, Kind kind);
    void clearNote();
    Kind kind() const { return kind_; }

private:
    Kind kind_ = Kind::problem;
};
