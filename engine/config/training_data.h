#pragma once

#include <string>
#include <vector>

#include "config/data_folder.h"
#include "config/train_config.h"
#include "data/dataset.h"

namespace dp {

// The training and test sets `config` asks for: Fashion-MNIST (from data_dir
// or the default folder), any MNIST-format folder (data_dir), or PyTorch's DataParallel tutorial's
// random set. Throws dp::Error naming the problem.
TrainTestSets load_training_data(const TrainConfig& config);

// What makes two processes' data the same, one "label=value" line each:
// where it came from (training_data_source), how many training and test
// samples there are, their shape, and a checksum of the first samples of
// each set (pixels and labels). The ranks of an mpirun job compare these
// before training, so that ranks given other data (another folder, another
// version of the files, other sizes) stop instead of mixing it.
std::string data_fingerprint(const TrainConfig& config, const TrainTestSets& data);

}  // namespace dp
