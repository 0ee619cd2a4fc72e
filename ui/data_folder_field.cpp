#include "data_folder_field.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

#include "config/data_folder.h"

DataFolderField::DataFolderField(QWidget* parent)
    : QWidget(parent), edit_(new QLineEdit(this)), browseButton_(new QPushButton(tr("Browse…"), this))
{
    edit_->setObjectName(QStringLiteral("dataFolderEdit"));
    browseButton_->setObjectName(QStringLiteral("dataFolderButton"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit_, 1);
    layout->addWidget(browseButton_);

    connect(edit_, &QLineEdit::textChanged, this, [this](const QString& text) {
        folders_[dataset_] = text;
        emit folderChanged();
    });
    connect(browseButton_, &QPushButton::clicked, this, &DataFolderField::chooseFolder);
}

void DataFolderField::setDataset(const QString& dataset)
{
    dataset_ = dataset;
    {
        // Showing another set's folder is no edit of it.
        const QSignalBlocker blocker(edit_);
        edit_->setText(folders_.value(dataset));
    }
    // The full default path does not fit the field; the tooltip has it.
    const bool fashion = dataset == QLatin1String("fashion-mnist");
    edit_->setPlaceholderText(fashion ? tr("the installed copy") : tr("required"));
    edit_->setToolTip(
        fashion ? tr("Empty: %1. Or a folder with the four IDX files.")
                      .arg(QString::fromStdString(dp::data_folder(dp::TrainConfig{}).string()))
                : tr("The folder with the four IDX files (train/t10k images and labels)."));
}

QString DataFolderField::folder() const
{
    return edit_->text().trimmed();
}

void DataFolderField::setFolder(const QString& folder)
{
    edit_->setText(folder);
}

void DataFolderField::setFolders(const DataFolders& folders)
{
    folders_ = folders;
    setDataset(dataset_);
}

void DataFolderField::chooseFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Folder with MNIST-format IDX files"), edit_->text());
    if (!folder.isEmpty())
        edit_->setText(folder);
}
