#include "study/sweep_grid.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <type_traits>

#include "core/error.h"
#include "core/format.h"
#include "io/json.h"

namespace dp {
namespace {

// The items of "1,2,4", each non-empty.
std::vector<std::string> split_values(const std::string& key, const std::string& list) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        std::string item = list.substr(start, comma - start);
        if (item.empty())
            throw Error("--sweep " + key + "=" + list + ": an empty value; list the values " +
                        "separated by commas (e.g. " + key + "=" +
                        (key == "lr" ? "0.1,0.2" : "1,2") + ")");
        items.push_back(std::move(item));
        start = comma + 1;
    }
    return items;
}

template <typename Number>
Number parse_value(const std::string& key, const std::string& text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
        throw Error("--sweep " + key + ": '" + text + "' is not a " +
                    (std::is_integral_v<Number> ? "whole number" : "number") +
                    (key == "lr" ? " (e.g. lr=0.1,0.2)" : " (e.g. " + key + "=1,2)"));
    return value;
}

template <typename Number>
std::vector<Number> parse_values(const std::string& key, const std::string& list) {
    std::vector<Number> values;
    for (const std::string& item : split_values(key, list)) {
        const Number value = parse_value<Number>(key, item);
        if (!(value > 0) || !std::isfinite(double(value)))
            throw Error("--sweep " + key + ": " + item + " is not above 0; every " + key +
                        " value must be");
        if (std::find(values.begin(), values.end(), value) != values.end())
            throw Error("--sweep " + key + " lists " + item + " twice; list each value once");
        values.push_back(value);
    }
    return values;
}

template <typename Number>
std::string values_text(const std::vector<Number>& values) {
    std::string text;
    for (const Number value : values) {
        if (!text.empty()) text += ",";
        if constexpr (std::is_integral_v<Number>)
            text += std::to_string(value);
        else
            text += json_number(value);  // its shortest form: 0.1, not 0.100000001
    }
    return text;
}

}  // namespace

const char* sweep_keys_text() { return "devices, batch-size, lr"; }

void add_sweep_axis(SweepGrid& grid, const std::string& spec) {
    const std::size_t equals = spec.find('=');
    if (equals == std::string::npos)
        throw Error("--sweep: '" + spec + "' is not KEY=VALUES; write e.g. devices=1,2 " +
                    "batch-size=64,256 (keys: " + sweep_keys_text() + ")");
    const std::string key = spec.substr(0, equals);
    const std::string list = spec.substr(equals + 1);
    const auto once = [&](bool empty) {
        if (!empty) throw Error("--sweep names " + key + " twice; give each key once, with all its values");
    };
    if (key == "devices") {
        once(grid.device_counts.empty());
        grid.device_counts = parse_values<int>(key, list);
        std::sort(grid.device_counts.begin(), grid.device_counts.end());
    } else if (key == "batch-size") {
        once(grid.batch_sizes.empty());
        grid.batch_sizes = parse_values<int>(key, list);
    } else if (key == "lr") {
        once(grid.lrs.empty());
        grid.lrs = parse_values<float>(key, list);
    } else {
        throw Error("--sweep: unknown key '" + key + "'; sweep one of " + sweep_keys_text() +
                    " (e.g. devices=1,2)");
    }
}

std::string sweep_grid_text(const SweepGrid& grid) {
    std::string text;
    const auto axis = [&](const char* key, const std::string& values) {
        if (values.empty()) return;
        if (!text.empty()) text += " ";
        text += std::string(key) + "=" + values;
    };
    axis("devices", values_text(grid.device_counts));
    axis("batch-size", values_text(grid.batch_sizes));
    axis("lr", values_text(grid.lrs));
    return text;
}

std::vector<SweepPoint> sweep_points(const SweepGrid& grid, const TrainConfig& base,
                                     int base_devices) {
    const std::vector<int> counts =
        grid.device_counts.empty() ? std::vector<int>{base_devices} : grid.device_counts;
    const std::vector<int> batches =
        grid.batch_sizes.empty() ? std::vector<int>{base.batch_size} : grid.batch_sizes;
    const std::vector<float> lrs = grid.lrs.empty() ? std::vector<float>{base.lr} : grid.lrs;
    std::vector<SweepPoint> points;
    for (const float lr : lrs)
        for (const int batch : batches)
            for (const int devices : counts) points.push_back({devices, batch, lr});
    return points;
}

}  // namespace dp
