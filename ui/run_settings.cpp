#include "run_settings.h"

#include <QSettings>
#include <QStringList>

#include <algorithm>

#include "core/error.h"
#include "config/device_choice.h"
#include "engine_message.h"
#include "config/config_fields.h"

namespace {

const QString kGroup = QStringLiteral("run/");
const QString kDataFoldersGroup = QStringLiteral("data_folders");

QString text(const std::string& value)
{
    return QString::fromStdString(value);
}

}  // namespace

// The remembered settings of the schema (config/config_fields.h), as text.
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
            dp::validate_setting(field, config);
        } catch (const dp::Error& error) {
            // A value this version cannot read or refuses (an unknown model,
            // 1e-320) keeps the default: the workbench still starts.
            qWarning("dp-workbench: the remembered %s '%s' is dropped: %s", field.label,
                     qPrintable(stored), qPrintable(engineMessage(error.what())));
            dp::set_field_text(field, config, dp::field_text(field, dp::TrainConfig{}));
        }
    }
    config.devices = usableDeviceIds(std::move(config.devices), dp::available_devices());
    return config;
}

void storeDataFolders(QSettings& settings, const DataFolders& folders)
{
    settings.remove(kDataFoldersGroup);
    settings.beginGroup(kDataFoldersGroup);
    for (auto folder = folders.begin(); folder != folders.end(); ++folder)
        settings.setValue(folder.key(), folder.value());
    settings.endGroup();
}

DataFolders loadDataFolders(const QSettings& settings)
{
    DataFolders folders;
    const QString prefix = kDataFoldersGroup + QLatin1Char('/');
    for (const QString& key : settings.allKeys()) {
        if (key.startsWith(prefix))
            folders.insert(key.mid(prefix.size()), settings.value(key).toString());
    }
    return folders;
}

std::vector<std::string> usableDeviceIds(std::vector<std::string> remembered,
                                         const std::vector<dp::DeviceInfo>& available)
{
    // "cuda:0x2" and "cuda:0#1" are usable where cuda:0 is.
    const auto find = [&](const std::string& id) {
        std::string device;
        try {
            device = dp::split_replicas(id).device;
        } catch (const dp::Error&) {
            return available.end();
        }
        return std::find_if(available.begin(), available.end(),
                            [&](const dp::DeviceInfo& known) { return known.id == device; });
    };
    std::erase_if(remembered, [&](const std::string& id) { return find(id) == available.end(); });
    const bool mixesKinds = std::any_of(remembered.begin(), remembered.end(), [&](const std::string& id) {
        return find(id)->kind != find(remembered.front())->kind;
    });
    if (mixesKinds)
        remembered.clear();
    return remembered;
}
