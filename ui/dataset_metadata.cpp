#include "dataset_metadata.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "workbench_resources.h"

DatasetMetadata datasetMetadata(const std::string& dataset)
{
    registerWorkbenchResources();
    QFile file(QStringLiteral(":/datasets/%1.json").arg(QString::fromStdString(dataset)));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    DatasetMetadata metadata;
    metadata.title = json.value(QStringLiteral("title")).toString();
    for (const QJsonValue& name : json.value(QStringLiteral("classes")).toArray())
        metadata.classNames.append(name.toString());
    metadata.trainImages = json.value(QStringLiteral("train_images")).toInt();
    metadata.testImages = json.value(QStringLiteral("test_images")).toInt();
    return metadata;
}
