#include "run_settings.h"

#include <QSettings>
#include <QStringList>

#include <algorithm>

#include "core/error.h"
#include "devices/device.h"
#include "train/config_fields.h"

namespace {

const QString kGroup = QStringLiteral("run/");

QString text(const std::string& value)
{
    return QString::fromStdString(value);
}

}  // namespace

// The remembered settings of the schema (train/config_fields.h), as text.
void storeRunConfig(QSettings& settings, const dp::TrainConfig& config)
{
    for (const dp::ConfigField& field : dp::config_fields()) {
        if (field.scope & dp::ConfigField::remembered)
            settings.setValue(kGroup + field.name, text(dp::field_text(field, config)));
    }
}

dp::TrainConfig loadRunConfig(const QSettings& settings)
{
    dp::TrainConfig config;
    for (const dp::ConfigField& field : dp::config_fields()) {
        const QVariant value = settings.value(kGroup + field.name);
        if (!(field.scope & dp::ConfigField::remembered) || !value.isValid())
            continue;
        // Lists were once stored as string lists.
        const QString stored = value.typeId() == QMetaType::QStringList
                ? value.toStringList().join(QLatin1Char(','))
                : value.toString();
        try {
            dp::set_field_text(field, config, stored.toStdString());
        } catch (const dp::Error&) {
            // A value this version cannot read keeps the default.
        }
    }
    // Devices that no longer exist (fewer cores) drop out; none left means all.
    const std::vector<dp::DeviceInfo> available = dp::available_devices();
    std::erase_if(config.devices, [&](const std::string& id) {
        return std::none_of(available.begin(), available.end(),
                            [&](const auto& device) { return device.id == id; });
    });
    return config;
}
