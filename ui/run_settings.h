#pragma once

#include "train/train_config.h"

class QSettings;

// The run settings a user last chose, kept between launches. Only what the
// configuration panel shows is stored; the rest keeps TrainConfig's defaults.
void storeRunConfig(QSettings& settings, const dp::TrainConfig& config);
dp::TrainConfig loadRunConfig(const QSettings& settings);
