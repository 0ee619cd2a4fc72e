#pragma once

namespace dp {

// A straggler's wait (config/slow_devices.h): after computing for
// `compute_seconds`, a device slowed by `factor` waits (factor - 1) times
// that, so that computing and waiting take factor times its compute. It
// sleeps, leaving its core to the other devices, as a slower device would
// while it ran behind. Returns the seconds it waited (the sleep's own,
// measured); 0 at once for a factor of 1.
double wait_as_straggler(double factor, double compute_seconds);

}  // namespace dp
