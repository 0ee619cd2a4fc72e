#include "parallel/batch_split.h"

#include "core/error.h"

#include <algorithm>
#include <string>

namespace dp {

std::vector<int> split_batch(int rows, int parts) {
    if (parts < 1) throw Error("cannot split a batch into " + std::to_string(parts) + " parts");
    if (rows < 0) throw Error("cannot split a batch of " + std::to_string(rows) + " rows");
    const int chunk = rows / parts + (rows % parts != 0);
    std::vector<int> sizes(static_cast<std::size_t>(parts));
    int remaining = rows;
    for (int& size : sizes) {
        size = std::min(chunk, remaining);
        remaining -= size;
    }
    return sizes;
}

std::vector<BatchShard> shard_batch(int rows, int parts) {
    std::vector<BatchShard> shards;
    int offset = 0;
    for (int size : split_batch(rows, parts)) {
        shards.push_back({offset, size});
        offset += size;
    }
    return shards;
}

}  // namespace dp
