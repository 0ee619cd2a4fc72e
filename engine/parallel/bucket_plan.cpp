#include "parallel/bucket_plan.h"

#include "core/error.h"

#include <optional>
#include <string>

namespace dp {

std::vector<GradientBucket> plan_buckets(std::span<const GradientSpan> params,
                                         std::size_t bucket_bytes, std::size_t first_bucket_bytes) {
    for (std::size_t i = 0; i < params.size(); ++i) {
        const std::size_t expected = i == 0 ? 0 : params[i - 1].offset + params[i - 1].size;
        if (params[i].offset != expected)
            throw Error("cannot bucket gradients: parameter " + std::to_string(i) + " starts at " +
                        std::to_string(params[i].offset) + ", not right after the previous one (" +
                        std::to_string(expected) + ")");
    }

    std::vector<GradientBucket> buckets;
    std::size_t cap_bytes = first_bucket_bytes;
    // Walk backwards; `open` is the bucket being filled, growing downwards.
    std::optional<GradientBucket> open;
    for (std::size_t param = params.size(); param-- > 0;) {
        const GradientSpan& span = params[param];
        if (open && (open->size + span.size) * sizeof(float) > cap_bytes) {
            buckets.push_back(*open);
            open.reset();
            cap_bytes = bucket_bytes;
        }
        if (!open)
            open = GradientBucket{.offset = 0, .size = 0, .first_param = 0, .last_param = param};
        open->offset = span.offset;
        open->size += span.size;
        open->first_param = param;
    }
    if (open) buckets.push_back(*open);
    return buckets;
}

}  // namespace dp
