#include "run_settings.h"

#include <QSettings>
#include <QStringList>

#include <algorithm>

#include "devices/device.h"

namespace {

const QString kGroup = QStringLiteral("run/");

QString text(const std::string& value)
{
    return QString::fromStdString(value);
}

}  // namespace

void storeRunConfig(QSettings& settings, const dp::TrainConfig& config)
{
    settings.setValue(kGroup + "model", text(config.model));
    settings.setValue(kGroup + "batch_size", config.batch_size);
    settings.setValue(kGroup + "lr", double(config.lr));
    settings.setValue(kGroup + "epochs", config.epochs);
    settings.setValue(kGroup + "seed", qulonglong(config.seed));
    settings.setValue(kGroup + "dataset", text(config.dataset));
    settings.setValue(kGroup + "data_dir", text(config.data_dir));
    settings.setValue(kGroup + "input_size", config.input_size);
    settings.setValue(kGroup + "samples", config.samples);
    settings.setValue(kGroup + "limit_train", config.limit_train);
    settings.setValue(kGroup + "limit_test", config.limit_test);
    QStringList devices;
    for (const std::string& id : config.devices)
        devices << text(id);
    settings.setValue(kGroup + "devices", devices);
    settings.setValue(kGroup + "allreduce", text(config.allreduce));
    settings.setValue(kGroup + "sync_bn", config.sync_bn);
}

dp::TrainConfig loadRunConfig(const QSettings& settings)
{
    dp::TrainConfig config;
    const auto string = [&](const char* key, const std::string& fallback) {
        return settings.value(kGroup + key, text(fallback)).toString().toStdString();
    };
    const auto integer = [&](const char* key, int fallback) {
        return settings.value(kGroup + key, fallback).toInt();
    };
    config.model = string("model", config.model);
    config.batch_size = integer("batch_size", config.batch_size);
    config.lr = float(settings.value(kGroup + "lr", double(config.lr)).toDouble());
    config.epochs = integer("epochs", config.epochs);
    config.seed = settings.value(kGroup + "seed", qulonglong(config.seed)).toULongLong();
    config.dataset = string("dataset", config.dataset);
    config.data_dir = string("data_dir", config.data_dir);
    config.input_size = integer("input_size", config.input_size);
    config.samples = integer("samples", config.samples);
    config.limit_train = integer("limit_train", config.limit_train);
    config.limit_test = integer("limit_test", config.limit_test);
    // Devices that no longer exist (fewer cores) drop out; none left means all.
    const std::vector<dp::DeviceInfo> available = dp::available_devices();
    for (const QString& id : settings.value(kGroup + "devices").toStringList()) {
        const bool exists = std::any_of(available.begin(), available.end(), [&](const auto& device) {
            return device.id == id.toStdString();
        });
        if (exists)
            config.devices.push_back(id.toStdString());
    }
    config.allreduce = string("allreduce", config.allreduce);
    config.sync_bn = settings.value(kGroup + "sync_bn", config.sync_bn).toBool();
    return config;
}
