#include "run_annotations.h"

#include <QStringList>

#include <algorithm>

QString tagsText(const std::vector<std::string>& tags)
{
    QStringList items;
    for (const std::string& tag : tags)
        items << QString::fromStdString(tag);
    return items.join(QStringLiteral(", "));
}

std::vector<std::string> tagsFromText(const QString& text)
{
    std::vector<std::string> tags;
    for (const QString& item : text.split(QLatin1Char(','))) {
        const std::string tag = item.trimmed().toStdString();
        if (!tag.empty() && std::find(tags.begin(), tags.end(), tag) == tags.end())
            tags.push_back(tag);
    }
    return tags;
}

QString notesSummary(const std::string& notes)
{
    const QString text = QString::fromStdString(notes).trimmed();
    const qsizetype lineEnd = text.indexOf(QLatin1Char('\n'));
    return lineEnd < 0 ? text : text.left(lineEnd).trimmed() + QStringLiteral(" …");
}
