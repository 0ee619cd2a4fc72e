#pragma once

// GUI tests on a machine without Fashion-MNIST: the tests that train skip,
// the others run against a stand-in folder whose files are right by name.

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "data/dataset.h"

// Whether the real Fashion-MNIST is installed: decided once, before
// initTestCase stands in a folder of empty files where it is not, so that
// the default settings pass the panel's check in the tests that never train.
inline bool fashionMnistAvailable()
{
    static const bool available = std::filesystem::is_directory(dp::default_fashion_mnist_dir());
    return available;
}

// The four files of an MNIST-format folder, empty: right by name, unreadable.
inline bool writeEmptyMnistFiles(const QString& folder)
{
    for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                             "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
        QFile empty(QDir(folder).filePath(QString::fromLatin1(name)));
        if (!empty.open(QIODevice::WriteOnly))
            return false;
    }
    return true;
}

// In initTestCase: where Fashion-MNIST is missing, DP_DATA_DIR names a
// stand-in folder of empty files under `scratch`. False if it could not be made.
inline bool standInForMissingFashionMnist(const QTemporaryDir& scratch)
{
    if (fashionMnistAvailable())
        return true;
    const QString standIn = scratch.filePath(QStringLiteral("fashion-mnist"));
    if (!QDir().mkpath(standIn) || !writeEmptyMnistFiles(standIn))
        return false;
    qputenv("DP_DATA_DIR", standIn.toUtf8());
    return true;
}

#define REQUIRE_FASHION_MNIST()                                                                    \
    if (!fashionMnistAvailable())                                                                  \
    QSKIP("Fashion-MNIST not found: install dataset-fashion-mnist or set DP_DATA_DIR")
