#pragma once

#include "cli/cli_options.h"

namespace dp {

// dp-train --sweep GRID [--repeat R] [--sweep-index I] [--study-out FILE]
// [--sweep-csv FILE]: the grid's runs, then its table (study/study_table.h),
// the study kept in one file (study/study_file.h; its path printed) and,
// when asked, the table as CSV. Returns dp-train's exit code.
int sweep(const CliCommand& command);

// dp-train --gather-study PART... --study-out FILE: the parts a Slurm job
// array's tasks wrote as one study, its table printed.
int gather_study(const CliCommand& command);

// dp-train --export-study FILE [--csv]: a study file's table on stdout, as
// text or as CSV.
int export_study(const CliCommand& command);

}  // namespace dp
