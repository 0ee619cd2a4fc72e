#include "record/step_timing_fields.h"

#include <array>
#include <cmath>
#include <type_traits>

#include "io/json.h"

namespace dp {

std::span<const StepTimingField> step_timing_fields() {
    static const std::array<StepTimingField, 9> fields{{
        {"shard", &DeviceStepTiming::shard},
        {"data", &DeviceStepTiming::data},
        {"forward", &DeviceStepTiming::forward},
        {"backward", &DeviceStepTiming::backward},
        {"allreduce", &DeviceStepTiming::allreduce},
        {"update", &DeviceStepTiming::update},
        {"gather", &DeviceStepTiming::gather, true},
        {"broadcast", &DeviceStepTiming::broadcast, true},
        {"straggler_wait", &DeviceStepTiming::straggler_wait, true},
    }};
    return fields;
}

double step_timing_value(const StepTimingField& field, const DeviceStepTiming& timing) {
    return std::visit([&](auto member) { return double(timing.*member); }, field.member);
}

void set_step_timing_value(const StepTimingField& field, DeviceStepTiming& timing, double value) {
    std::visit(
        [&](auto member) {
            using Value = std::remove_reference_t<decltype(timing.*member)>;
            timing.*member = std::is_integral_v<Value> ? Value(std::llround(value)) : Value(value);
        },
        field.member);
}

std::string step_totals_json(const std::vector<DeviceStepTiming>& totals) {
    std::string out = "[";
    for (std::size_t d = 0; d < totals.size(); ++d) {
        out += d ? ", {" : "{";
        for (std::size_t f = 0; f < step_timing_fields().size(); ++f) {
            const StepTimingField& field = step_timing_fields()[f];
            out += (f ? ", " : "") + json_string(field.name) + ": " +
                   json_number(step_timing_value(field, totals[d]));
        }
        out += "}";
    }
    return out + "]";
}

}  // namespace dp
