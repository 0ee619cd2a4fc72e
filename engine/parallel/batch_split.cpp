#include "parallel/batch_split.h"

#include "core/error.h"

#include <algorithm>
#include <string>

namespace dp {

BatchShard batch_shard(int rows, int parts, int part) {
    if (parts < 1) throw Error("cannot split a batch into " + std::to_string(parts) + " parts");
    if (rows < 0) throw Error("cannot split a batch of " + std::to_string(rows) + " rows");
    if (part < 0 || part >= parts)
        throw Error("no part " + std::to_string(part) + " of a batch split into " +
                    std::to_string(parts));
    const int chunk = rows / parts + (rows % parts != 0);
    const int offset = std::min(rows, chunk * part);
    return {offset, std::min(chunk, rows - offset)};
}

std::vector<int> split_batch(int rows, int parts) {
    std::vector<int> sizes;
    for (const BatchShard& shard : shard_batch(rows, parts)) sizes.push_back(shard.rows);
    return sizes;
}

std::vector<BatchShard> shard_batch(int rows, int parts) {
    batch_shard(rows, parts, 0);  // throws for bad arguments, even where the loop would not run
    std::vector<BatchShard> shards;
    for (int part = 0; part < parts; ++part) shards.push_back(batch_shard(rows, parts, part));
    return shards;
}

}  // namespace dp
