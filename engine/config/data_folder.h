#pragma once

// Where a run's data comes from, as front ends check it before the run: the
// data sets, the image folder and why it cannot serve. The engine's face
// (nothing here reaches data/); loading the data is config/training_data.h.
// Defined in config/training_data.cpp.

#include <filesystem>
#include <string>
#include <vector>

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

}  // namespace dp
