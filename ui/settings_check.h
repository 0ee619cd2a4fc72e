#pragma once

#include <QString>

#include <map>
#include <string>
#include <vector>

#include "config/device_choice.h"
#include "config/train_config.h"

// What the settings panel says about a run's settings before Start, each
// note about one field: the problems that keep the run from starting, and
// hints about settings that run but will disappoint.
struct SettingsNote {
    enum class Kind { problem, hint };
    Kind kind = Kind::problem;
    std::string field;  // the config_fields name it is about ("lr"); empty: none in particular
    QString text;       // in the panel's words, naming fields by their labels
};

// The training images one epoch of `config` reads (the training set, or the
// first limit_train of it); 0 when the set's size is unknown (an
// MNIST-format folder read whole).
int trainingImages(const dp::TrainConfig& config);

// The notes on `config`, problems first. `devices` are the devices that
// config.devices names (the panel's checked ones, none or of two kinds
// included); `shownValues` are the numbers as the panel shows them, by field
// name, so that a message quotes what the user typed. The checks here look
// at every field at once; dp::validate, which stops at its first problem,
// runs only when they find none. Hints come only for settings that can run.
std::vector<SettingsNote> checkRunSettings(const dp::TrainConfig& config,
                                          const std::vector<dp::DeviceInfo>& devices,
                                          const std::map<std::string, QString>& shownValues);
