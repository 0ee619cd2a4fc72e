#pragma once

// The device list (DeviceInfo, available_devices, select_devices, ...) is
// declared in the engine's face, config/device_choice.h, for the front ends
// to include without reaching devices/; devices/device.cpp defines it. This
// header is the devices floor's own name for it.
#include "config/device_choice.h"
