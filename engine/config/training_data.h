#pragma once

#include <string>
#include <vector>

#include "data/dataset.h"
#include "config/train_config.h"

namespace dp {

// The data sets --dataset takes, in display order.
const std::vector<std::string>& dataset_names();

// The folder the images of `config` come from: data_dir, or where
// Debian's dataset-fashion-mnist installs Fashion-MNIST when it is empty.
std::filesystem::path data_folder(const TrainConfig& config);

// Where the data of `config` comes from, for the log: a folder, or "random ...".
std::string training_data_source(const TrainConfig& config);

// The files a run of `config` may read its data from (none for the random set).
std::vector<std::filesystem::path> training_data_files(const TrainConfig& config);

// Why the image folder `config` names cannot give a run its data, found
// before the run starts (loading it would fail after). The rule is here;
// each front end words it.
struct DataFolderProblem {
    enum class Kind {
        none,            // the folder holds the four files, or the data set is random
        no_folder,       // mnist-format without data_dir
        not_installed,   // Fashion-MNIST's default folder lacks its files
        no_such_folder,  // data_dir does not exist
        not_a_folder,    // data_dir is a file
        no_files,        // data_dir holds none of the four files
        missing_files,   // data_dir lacks `missing`
    };
    Kind kind = Kind::none;
    std::filesystem::path folder;      // the folder looked in
    std::vector<std::string> missing;  // missing_files: their names ("train-images-idx3-ubyte")
};
DataFolderProblem data_folder_problem(const TrainConfig& config);

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
