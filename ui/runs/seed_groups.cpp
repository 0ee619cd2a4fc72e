#include "seed_groups.h"

#include <algorithm>
#include <string_view>

#include "config/config_fields.h"

std::string seedGroupKey(const dp::RunRecord& record)
{
    std::string key;
    for (const dp::ConfigField& field : dp::config_fields()) {
        // Where a run's files went says nothing about how it trained.
        if (field.section == dp::HelpSection::records || field.name == std::string_view("seed"))
            continue;
        key += field.name;
        key += '=';
        key += dp::field_text(field, record.config);
        key += '\n';
    }
    return key;
}

std::optional<Spread> spreadOf(std::vector<double> values)
{
    if (values.empty())
        return std::nullopt;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    const double median =
        values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    return Spread{median, values.front(), values.back()};
}
