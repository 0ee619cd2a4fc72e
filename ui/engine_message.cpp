#include "engine_message.h"

#include "config/config_fields.h"

QString engineMessage(const std::string& message)
{
    return QString::fromStdString(dp::render_settings(message, [](const dp::ConfigField& field) {
        return "\u201c" + std::string(field.label) + "\u201d";
    }));
}

QString settingLabel(const char* name)
{
    QString label = QString::fromUtf8(dp::config_field(name).label);
    if (!label.isEmpty())
        label[0] = label[0].toUpper();
    return label;
}
