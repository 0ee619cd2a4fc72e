#pragma once

#include <QString>
#include <QStringList>

#include <string>

// What the workbench knows about a data set beyond its files, from
// resources/datasets/<name>.json: its class names and image counts.
struct DatasetMetadata {
    QString title;           // "Fashion-MNIST"
    QStringList classNames;  // by label: "t-shirt", "trouser", ...
    int trainImages = 0;     // 0: unknown (any MNIST-format folder)
    int testImages = 0;
};

// The metadata of `dataset` (a TrainConfig::dataset name); empty for a data
// set without a file (mnist-format folders, the synthetic set), whose
// classes then show as their numbers.
DatasetMetadata datasetMetadata(const std::string& dataset);
