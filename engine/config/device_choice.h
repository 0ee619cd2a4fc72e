#pragma once

// The devices setting as front ends meet it: the machine's devices
// (DeviceInfo, available_devices, default_devices), how a list of ids names
// them (select_devices, replicas "cpu:0x2"), and the rule that one run's
// devices are of one kind (device_kinds_problem). Front ends include this
// header, never devices/ itself: how a device runs its threads stays the
// engine's (scripts/check-floors holds ui/ to it).
#include "devices/device.h"
