#pragma once

#include <QWidget>

#include "run_settings.h"

class QLineEdit;
class QPushButton;

// The data folder of the chosen image data set: a path and Browse…. Each
// data set keeps its own folder, so one chosen for an MNIST-format set never
// carries over to Fashion-MNIST, whose empty folder means the installed copy.
class DataFolderField : public QWidget {
    Q_OBJECT

public:
    explicit DataFolderField(QWidget* parent = nullptr);

    // Shows the folder of `dataset` (a TrainConfig::dataset name).
    void setDataset(const QString& dataset);
    // The shown data set's folder, as typed less surrounding spaces.
    QString folder() const;
    void setFolder(const QString& folder);

    // Every data set's folder, to remember between launches.
    DataFolders folders() const { return folders_; }
    void setFolders(const DataFolders& folders);

signals:
    void folderChanged();

private:
    void chooseFolder();

    QString dataset_;
    DataFolders folders_;
    QLineEdit* edit_;
    QPushButton* browseButton_;
};
