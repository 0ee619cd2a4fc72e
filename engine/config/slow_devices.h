#pragma once

#include <string>
#include <vector>

namespace dp {

// A straggler (TrainConfig::slow_devices, --slow-device cpu:1=1.5): the
// device computes each step, then waits (factor - 1) times that compute
// before it joins the all-reduce, so the other devices wait for it there:
// what one slower GPU or a busier node does to a synchronous step.
struct SlowDevice {
    std::string device;  // a resolved device id, "cpu:1" or "cuda:0#1"
    double factor = 1;   // its compute time is factor times its own
};

// The most a device may be slowed: beyond it a step of ResNet-18 would wait
// minutes, and a factor has no use there.
inline constexpr double kMaxSlowdown = 100;

// The entries ("cpu:1=1.5"), each a device id, '=' and a factor from 1 to
// kMaxSlowdown, no device twice. Throws dp::Error with a one-line message
// that quotes the entry, says what is wrong and how to write it.
std::vector<SlowDevice> parse_slow_devices(const std::vector<std::string>& entries);

// The factor `device` computes at: its entry's, or 1 if it has none.
// The entries must parse (parse_slow_devices).
double slowdown_of(const std::vector<std::string>& entries, const std::string& device);

// The entries that name one of `devices`, in their order: a comparison's
// run on fewer devices keeps only its own (the 1-device run of
// --compare 1,2 --slow-device cpu:1=1.5 has no cpu:1 and runs unslowed).
std::vector<std::string> slow_devices_among(const std::vector<std::string>& entries,
                                            const std::vector<std::string>& devices);

// "cpu:1 1.5x slower, cpu:2 2x slower"; empty without entries.
std::string slow_devices_text(const std::vector<std::string>& entries);

}  // namespace dp
