#include "backend/precision.h"

#include "core/error.h"

namespace dp {

namespace {
constexpr Precision kPrecisions[] = {Precision::fp32, Precision::fp32_fast, Precision::bf16,
                                     Precision::tf32};
}

const char* precision_name(Precision precision) {
    switch (precision) {
    case Precision::fp32: return "fp32";
    case Precision::fp32_fast: return "fp32-fast";
    case Precision::bf16: return "bf16";
    case Precision::tf32: return "tf32";
    }
    return "fp32";
}

std::optional<Precision> parse_precision(std::string_view name) {
    for (const Precision precision : kPrecisions)
        if (name == precision_name(precision)) return precision;
    return std::nullopt;
}

Precision precision_named(std::string_view name) {
    if (const auto precision = parse_precision(name)) return *precision;
    std::string known;
    for (const std::string& each : precision_names()) known += (known.empty() ? "" : ", ") + each;
    throw Error("unknown precision '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> precision_names() {
    std::vector<std::string> names;
    for (const Precision precision : kPrecisions) names.emplace_back(precision_name(precision));
    return names;
}

}  // namespace dp
