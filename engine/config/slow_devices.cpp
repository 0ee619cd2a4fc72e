#include "config/slow_devices.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.h"
#include "core/format.h"
#include "core/setting_ref.h"

namespace dp {
namespace {

constexpr const char* kHowToWrite =
    "write DEVICE=FACTOR, e.g. cpu:1=1.5 (cpu:1 takes 1.5 times its compute time)";

// "{slow_devices} 'cpu:1': <problem>; <fix>".
[[noreturn]] void refuse(const std::string& entry, const std::string& problem,
                         const char* fix = kHowToWrite) {
    std::string message = setting("slow_devices");
    message += " '";
    message += entry;
    message += "': ";
    message += problem;
    message += "; ";
    message += fix;
    throw Error(message);
}

SlowDevice parse_entry(const std::string& entry) {
    const auto equals = entry.rfind('=');
    if (equals == std::string::npos) refuse(entry, "no '=' before a factor");
    SlowDevice slow{entry.substr(0, equals), 0};
    const std::string factor = entry.substr(equals + 1);
    if (slow.device.empty()) refuse(entry, "no device before '='");
    const auto [end, error] = std::from_chars(factor.data(), factor.data() + factor.size(), slow.factor);
    if (factor.empty() || error != std::errc() || end != factor.data() + factor.size())
        refuse(entry, "'" + factor + "' is not a number");
    if (!(slow.factor >= 1 && slow.factor <= kMaxSlowdown))
        refuse(entry, format("the factor must be from 1 to %g (got %s)", kMaxSlowdown, factor.c_str()));
    return slow;
}

}  // namespace

std::vector<SlowDevice> parse_slow_devices(const std::vector<std::string>& entries) {
    std::vector<SlowDevice> slow;
    for (const std::string& entry : entries) {
        SlowDevice device = parse_entry(entry);
        const bool twice = std::any_of(slow.begin(), slow.end(),
                                       [&](const SlowDevice& s) { return s.device == device.device; });
        if (twice) refuse(entry, device.device + " is named twice", "name each slow device once");
        slow.push_back(std::move(device));
    }
    return slow;
}

double slowdown_of(const std::vector<std::string>& entries, const std::string& device) {
    for (const SlowDevice& slow : parse_slow_devices(entries))
        if (slow.device == device) return slow.factor;
    return 1;
}

std::vector<std::string> slow_devices_among(const std::vector<std::string>& entries,
                                            const std::vector<std::string>& devices) {
    std::vector<std::string> kept;
    const std::vector<SlowDevice> slow = parse_slow_devices(entries);
    for (std::size_t i = 0; i < slow.size(); ++i)
        if (std::find(devices.begin(), devices.end(), slow[i].device) != devices.end())
            kept.push_back(entries[i]);
    return kept;
}

std::string slow_devices_text(const std::vector<std::string>& entries) {
    std::string text;
    for (const SlowDevice& slow : parse_slow_devices(entries)) {
        if (!text.empty()) text += ", ";
        text += slow.device;
        text += format(" %gx slower", slow.factor);
    }
    return text;
}

}  // namespace dp
