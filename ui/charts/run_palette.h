#pragma once

#include <QColor>

// The colours that tell runs apart on every chart, in the runs table and in
// the chart legend. The first five are matplotlib's tab10 (familiar from
// d2l's plots); the rest were picked so that any two of the first twelve
// differ by at least 20 CIEDE2000 units (tab10 itself has red and brown at
// 16), and none is near the grey of the speedup chart's ideal line.
int runPaletteSize();
// The colour of the `index`th run; after runPaletteSize() runs they repeat.
QColor runColor(int index);
// The neutral grey of reference lines (the ideal speedup): no run has it.
QColor referenceLineColor();
