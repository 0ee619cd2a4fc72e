#pragma once

#include <QString>

#include <string>

// An engine message as the workbench shows it: the settings it names
// ("{data_dir}", config/config_fields.h) become the settings panel's words
// in quotes (“data folder”) instead of dp-train's flags.
QString engineMessage(const std::string& message);

// How the settings panel labels the setting named `name` (a config_fields
// name): its schema label, capitalized ("lr": "Learning rate"), so the
// panel's rows and every message name a setting alike.
QString settingLabel(const char* name);
