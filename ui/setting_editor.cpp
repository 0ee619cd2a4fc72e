#include "setting_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>

#include <limits>

#include "config/train_config.h"
#include "core/error.h"
#include "decimal_spin_box.h"

namespace {

QString tooltipOf(const dp::ConfigField& field)
{
    QString help = field.help ? QString::fromUtf8(field.help) : QString();
    help.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return field.flag ? help + QStringLiteral(" (%1)").arg(QString::fromUtf8(field.flag)) : help;
}

}  // namespace

SettingEditor::SettingEditor(const dp::ConfigField& field, QWidget* parent)
    : QObject(parent), field_(field), widget_(createWidget(parent))
{
    widget_->setObjectName(QString::fromUtf8(field.name) + QStringLiteral("Editor"));
    widget_->setToolTip(tooltipOf(field));
}

QWidget* SettingEditor::createWidget(QWidget* parent)
{
    switch (dp::field_kind(field_)) {
    case dp::FieldKind::integer: {
        auto* spin = new QSpinBox(parent);
        // Below the field's minimum stays reachable, as the learning rate's
        // does: the field's note then says why the value is refused.
        spin->setRange(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
        connect(spin, &QSpinBox::valueChanged, this, &SettingEditor::changed);
        return spin;
    }
    case dp::FieldKind::real32:
    case dp::FieldKind::real64: {
        auto* spin = new DecimalSpinBox(parent);
        spin->setDecimals(6);
        spin->setRange(-1e9, 1e9);
        spin->setSingleStep(field_.min >= 0 ? 0.0001 : 0.1);
        connect(spin, &QDoubleSpinBox::valueChanged, this, &SettingEditor::changed);
        return spin;
    }
    case dp::FieldKind::boolean: {
        auto* check = new QCheckBox(parent);
        connect(check, &QCheckBox::toggled, this, &SettingEditor::changed);
        return check;
    }
    case dp::FieldKind::uint64:
    case dp::FieldKind::text:
    case dp::FieldKind::text_list:
        break;
    }
    if (const auto choices = dp::field_choices(field_); !choices.empty()) {
        auto* combo = new QComboBox(parent);
        for (const std::string& choice : choices)
            combo->addItem(QString::fromStdString(choice));
        connect(combo, &QComboBox::currentIndexChanged, this, &SettingEditor::changed);
        return combo;
    }
    auto* line = new QLineEdit(parent);
    connect(line, &QLineEdit::textChanged, this, &SettingEditor::changed);
    return line;
}

void SettingEditor::read(const dp::TrainConfig& config)
{
    const QString text = QString::fromStdString(dp::field_text(field_, config));
    if (auto* spin = qobject_cast<QSpinBox*>(widget_))
        spin->setValue(text.toInt());
    else if (auto* spin = qobject_cast<QDoubleSpinBox*>(widget_))
        spin->setValue(text.toDouble());
    else if (auto* check = qobject_cast<QCheckBox*>(widget_))
        check->setChecked(text == QLatin1String("true"));
    else if (auto* combo = qobject_cast<QComboBox*>(widget_))
        combo->setCurrentIndex(combo->findText(text));
    else if (auto* line = qobject_cast<QLineEdit*>(widget_))
        line->setText(text);
}

void SettingEditor::write(dp::TrainConfig& config) const
{
    // field_text's form, which set_field_text reads back exactly.
    QString text;
    if (auto* spin = qobject_cast<QSpinBox*>(widget_))
        text = QString::number(spin->value());
    else if (auto* spin = qobject_cast<QDoubleSpinBox*>(widget_))
        text = QString::number(spin->value(), 'g', QLocale::FloatingPointShortest);
    else if (auto* check = qobject_cast<QCheckBox*>(widget_))
        text = check->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
    else if (auto* combo = qobject_cast<QComboBox*>(widget_))
        text = combo->currentText();
    else if (auto* line = qobject_cast<QLineEdit*>(widget_))
        text = line->text().trimmed();
    try {
        dp::set_field_text(field_, config, text.toStdString());
    } catch (const dp::Error&) {
        // An editor shows only values its field holds; nothing to keep.
    }
}

QString SettingEditor::shownText() const
{
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(widget_))
        return spin->text();
    dp::TrainConfig config;
    write(config);
    return QString::fromStdString(dp::field_text(field_, config));
}
