#pragma once

#include <string_view>
#include <utility>
#include <vector>

// The Lessons menu's experiments: each a few runs a class can watch finish
// in a few minutes on a 2-core laptop, and a sentence on what to look for.
// Settings are written as their config_fields names and texts (the command
// line's values), so a lesson needing a new setting is still one table row.

// Settings as (config_fields name, value text) pairs: "batch_size", "8".
using LessonSettings = std::vector<std::pair<const char*, const char*>>;

struct LessonRun {
    int devices = 1;          // the first N of the machine's devices (dp::select_devices({}))
    LessonSettings settings;  // over the lesson's own
    // Above 1: the run's second device computes this many times slower
    // (TrainConfig::slow_devices), named here by position because device ids
    // differ between machines (cpu:1, cuda:1).
    double secondDeviceSlowdown = 1;
};

// What a lesson's text tells the class its runs will show of the speedup,
// checked against what they measured (lesson_result_note.h).
enum class LessonExpectation {
    none,                // nothing of the speedup (loss curves, say)
    speedupAtMostOne,    // "a speedup of 1× or less"
    speedupWellAboveOne, // "a speedup well above 1×"
    secondSpeedupLower,  // its second comparison's speedup below its first's
};

struct Lesson {
    const char* name;     // what --lesson takes: "lenet-1-vs-2"
    const char* title;    // the menu item (translated in the "Lessons" context)
    const char* lookFor;  // what the runs show, in a sentence: the banner and the item's tooltip
    // Every run's settings; the others stay at dp::TrainConfig's defaults.
    LessonSettings settings;
    std::vector<LessonRun> runs;  // queued in this order
    LessonExpectation expects = LessonExpectation::none;
};

// Every lesson, in the menu's order.
const std::vector<Lesson>& lessons();
// The lesson named `name`; null if none is.
const Lesson* findLesson(std::string_view name);
