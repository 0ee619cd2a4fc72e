#pragma once

#include <QString>

// The workbench's words for the things it shows, from one place, so the
// window, the table, the charts and the exports spell each concept the same
// way. Source text is English; with no translation installed, tr's %n would
// print "run(s)", so counted nouns are spelled out here.
namespace vocabulary {

// Counted nouns: "1 run", "2 runs".
QString runs(int count);
QString devices(int count);
QString epochs(int count);
QString cores(int count);

// One device by its place in a run: "device 0" (the Classroom's rows; the
// ring view's title case "Device 0" is a heading of the same word).
QString deviceNumber(int index);

// Time per epoch: the axis or column title, and the unit after a value.
QString secondsPerEpochTitle();  // "Seconds per epoch"
QString secondsPerEpochUnit();   // "s/epoch"
// A value with its unit: "1.23 s/epoch".
QString secondsPerEpoch(double seconds);

// A length of time as an estimate says it: "under a minute", "about 1
// minute", "about 12 minutes", "about 3 hours".
QString aboutDuration(double seconds);

// Speedup: "1.95×", as the table, the card and the run labels ("2× cpu") write it.
QString speedup(double times);

// Accuracy as a fraction with three decimals, as the table shows it.
QString accuracy(double fraction);

// The loss axis's logarithmic switch.
QString logScale();  // "Log scale"

}  // namespace vocabulary
