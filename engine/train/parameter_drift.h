#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

namespace dp {

// How far one run's parameters are from another's. Data parallelism is the
// same mathematics as one device, so N devices started from the same seed
// track the 1-device run up to float rounding: the 1-device run of a
// comparison writes its parameters after each epoch (TrainConfig::snapshot_dir),
// the N-device run reads them back and measures (TrainConfig::drift_from).

// The largest |a - b| / max(|a|, |b|, floor) over the elements: relative for
// ordinary weights, absolute below `floor`, so that weights near zero (whose
// relative error is all rounding) do not decide it.
double max_relative_difference(std::span<const float> a, std::span<const float> b,
                               double floor = 1e-3);

// ||a - b|| / ||b|| (Euclidean norms over every parameter): the drift a
// comparison shows. Element-wise maxima are decided by the few weights that
// cross zero, and reach 2 while the parameters as a whole agree to 1e-4
// (../shared/MEASURING.md measures against norms for the same reason).
double relative_norm_difference(std::span<const float> a, std::span<const float> b);

// DIR/epoch-<n>.f32: the parameters after epoch n, raw float32 in the
// model's parameter order.
std::filesystem::path epoch_snapshot_path(const std::filesystem::path& dir, int epoch);

// Written atomically; throws dp::Error naming the file.
void write_parameter_snapshot(const std::filesystem::path& file, std::span<const float> parameters);

// The snapshot, or none when the file is missing or holds another number of
// parameters (another model: nothing to compare with).
std::optional<std::vector<float>> read_parameter_snapshot(const std::filesystem::path& file,
                                                          std::size_t count);

}  // namespace dp
