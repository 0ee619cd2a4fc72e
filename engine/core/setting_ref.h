#pragma once

#include <string>

namespace dp {

// How an engine message names a setting: "{data_dir}". Each front end
// renders these its own way (config/config_fields.h: render_settings):
// dp-train as its flag ("--data-dir"), the workbench as the field's label,
// so the engine's messages speak neither's language.
inline std::string setting(const char* name) { return std::string("{") + name + "}"; }

}  // namespace dp
