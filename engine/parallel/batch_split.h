#pragma once

#include <vector>

namespace dp {

// One replica's rows of a batch: rows [offset, offset + rows).
struct BatchShard {
    int offset = 0;
    int rows = 0;
    bool operator==(const BatchShard&) const = default;
};

// How many rows each of `parts` replicas gets, as torch.chunk and
// nn.parallel.scatter split a batch: shards of ceil(rows/parts) until the rows
// run out, then the rest, then empty shards (30 over 4: 8,8,8,6; 9 over 4:
// 3,3,3,0). Always `parts` entries summing to `rows`. dp::Error if parts < 1
// or rows < 0.
std::vector<int> split_batch(int rows, int parts);

// The same split as consecutive slices of the batch.
std::vector<BatchShard> shard_batch(int rows, int parts);

// Part `part` of that split alone, without building the others, so the step
// loop allocates nothing. dp::Error as above, or unless 0 <= part < parts.
BatchShard batch_shard(int rows, int parts, int part);

}  // namespace dp
