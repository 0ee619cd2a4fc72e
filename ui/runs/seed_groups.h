#pragma once

#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"

// Runs that differ only in their seed form a seed group: repeats of one
// setting, shown together as a median and a min-max range.

// The settings a run was trained with, its seed and its records' paths left
// out: equal for the runs of one seed group.
std::string seedGroupKey(const dp::RunRecord& record);

struct Spread {
    double median = 0, min = 0, max = 0;
};
// The median (of the middle two, for an even count) and range of `values`;
// empty for none.
std::optional<Spread> spreadOf(std::vector<double> values);
