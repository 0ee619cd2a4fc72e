#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <vector>

namespace dp {

// Where one parameter's gradient lies in the gradient buffer, in floats:
// all that bucketing needs to know of a parameter.
struct GradientSpan {
    std::size_t offset = 0, size = 0;
};

// A group of whole parameters whose gradients are all-reduced together: the
// slice [offset, offset + size) of the gradient buffer (in floats), holding
// parameters first_param..last_param (indices in forward order, inclusive).
struct GradientBucket {
    std::size_t offset = 0, size = 0;
    std::size_t first_param = 0, last_param = 0;
    bool operator==(const GradientBucket&) const = default;
};

// PyTorch DDP's bucketing: buckets are filled in reverse parameter order, the
// order backward produces gradients (the last layer's first), so bucket 0 can
// be reduced while backward still runs on the earlier layers. Bucket 0 holds
// at most first_bucket_bytes (DDP: 1 MB, small so communication starts early),
// the others at most bucket_bytes (DDP: 25 MB). A parameter larger than its
// bucket's cap gets a bucket of its own. (DDP closes a bucket once it reaches
// the cap, so its buckets may exceed it; here caps are never exceeded except
// by a lone parameter.) `params` must be laid out back to back in forward
// order, as ParameterStore::declare lays them out; dp::Error otherwise.
// Since the layout is in forward order, every bucket is one contiguous slice.
std::vector<GradientBucket> plan_buckets(std::span<const GradientSpan> params,
                                         std::size_t bucket_bytes, std::size_t first_bucket_bytes);

// The same for any list of parameters that say where they lie (offset and
// size members, as nn/'s ParameterInfo has), so that parallel/ plans buckets
// without knowing what a parameter is.
template <typename Parameter>
    requires requires(const Parameter& parameter) {
        { parameter.offset } -> std::convertible_to<std::size_t>;
        { parameter.size } -> std::convertible_to<std::size_t>;
    }
std::vector<GradientBucket> plan_buckets(const std::vector<Parameter>& params,
                                         std::size_t bucket_bytes, std::size_t first_bucket_bytes) {
    std::vector<GradientSpan> spans;
    spans.reserve(params.size());
    for (const Parameter& parameter : params) spans.push_back({parameter.offset, parameter.size});
    return plan_buckets(std::span<const GradientSpan>(spans), bucket_bytes, first_bucket_bytes);
}

}  // namespace dp
