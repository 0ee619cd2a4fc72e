#pragma once

#include <string>
#include <vector>

#include "config/train_config.h"

namespace dp {

// A sweep's grid (dp-train --sweep devices=1,2 batch-size=64,256 lr=0.1,0.2):
// the values each swept setting takes, every combination one grid point.
// A setting not swept keeps the base run's value. The grid and its point
// order are the API a Slurm job array relies on: task I runs point I
// (dp-train --sweep ... --sweep-index I) and a last step gathers the
// records into one study (study/study_file.h).
struct SweepGrid {
    std::vector<int> device_counts;  // ascending, each once; empty: the base run's devices
    std::vector<int> batch_sizes;    // as given, each once; empty: the base run's
    std::vector<float> lrs;          // as given, each once; empty: the base run's
};

// The keys an axis may name, as the help text lists them: "devices, batch-size, lr".
const char* sweep_keys_text();

// Adds one axis, "KEY=V1,V2,...", to `grid`. Throws dp::Error with one line
// naming the problem and the fix: an unknown key, a key given twice, an
// empty or malformed value, a value listed twice, a count below 1.
void add_sweep_axis(SweepGrid& grid, const std::string& spec);

// "devices=1,2 batch-size=64,256": the grid as the command line gives it.
std::string sweep_grid_text(const SweepGrid& grid);

// One grid point's settings.
struct SweepPoint {
    int devices = 0;
    int batch_size = 0;
    float lr = 0;
};

// Every point of the grid over `base` (whose devices count is
// `base_devices`), in a fixed order: lr outermost, then batch size, then the
// device counts ascending, so that each (batch size, lr) cell's runs are
// adjacent, its smallest device count (the speedups' baseline) first.
std::vector<SweepPoint> sweep_points(const SweepGrid& grid, const TrainConfig& base,
                                     int base_devices);

}  // namespace dp
