#pragma once

#include <QMap>
#include <QString>

#include <string>
#include <vector>

#include "config/device_choice.h"
#include "config/train_config.h"

class QSettings;

// The run settings a user last chose, kept between launches. Only what the
// configuration panel shows is stored; the rest keeps TrainConfig's defaults.
void storeRunConfig(QSettings& settings, const dp::TrainConfig& config);
dp::TrainConfig loadRunConfig(const QSettings& settings);

// The folder chosen for each image data set, by TrainConfig::dataset name:
// a folder chosen for one set is not another's.
using DataFolders = QMap<QString, QString>;
void storeDataFolders(QSettings& settings, const DataFolders& folders);
DataFolders loadDataFolders(const QSettings& settings);

// The remembered devices a run can still use on a machine with `available`:
// ids it no longer has (fewer cores) drop out, and a list mixing GPUs and
// CPU cores, which no run can use (earlier versions remembered every device
// of a GPU machine that way), is dropped whole. Empty means the default
// (dp::default_devices).
std::vector<std::string> usableDeviceIds(std::vector<std::string> remembered,
                                         const std::vector<dp::DeviceInfo>& available);
