#pragma once

#include <cstddef>
#include <vector>

#include "nn/parameter_store.h"

namespace dp {

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
std::vector<GradientBucket> plan_buckets(const std::vector<ParameterInfo>& params,
                                         std::size_t bucket_bytes, std::size_t first_bucket_bytes);

}  // namespace dp
