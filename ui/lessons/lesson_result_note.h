#pragma once

#include <QString>

#include <vector>

#include "record/run_record.h"

struct Lesson;

// Where a lesson's finished runs contradict what its text tells the class to
// look for (Lesson::expects: "look for a speedup well above 1×" beside a
// measured 0.91×), a note saying so, with the measured speedups and why they
// may read so, from the runs' own numbers: a run the rest of the machine kept
// busy (RunRecord::busy), too few steady epochs or steps for a narrow range,
// devices that took turns on fewer cores. Empty where the runs agree with the
// text, where the lesson expects nothing of the speedup, or where they have
// no speedup to read. `runs` are the lesson's runs in the order they ran.
QString lessonResultNote(const Lesson& lesson, const std::vector<dp::RunRecord>& runs);
