#include "run_palette.h"

#include <array>

namespace {

// Chosen greedily in CIELAB among colours readable on white (lightness
// 32-70) and clearly coloured (chroma 40-85): each next colour is the one
// farthest from those before it and from the reference grey.
constexpr std::array<QRgb, 16> kRunColors{
    0x1f77b4,  // blue      (tab10)
    0xff7f0e,  // orange    (tab10)
    0x2ca02c,  // green     (tab10)
    0xd62728,  // red       (tab10)
    0x9467bd,  // purple    (tab10)
    0x665500,  // olive brown
    0xbbaa00,  // mustard
    0x990055,  // plum
    0xff6699,  // pink
    0x00bbaa,  // teal
    0x006633,  // dark green
    0x4433bb,  // indigo
    0x77aaff,  // sky blue
    0xaa5500,  // rust
    0xee77ff,  // orchid
    0xff7766,  // salmon
};

}  // namespace

int runPaletteSize()
{
    return int(kRunColors.size());
}

QColor runColor(int index)
{
    const int size = runPaletteSize();
    return QColor(kRunColors[std::size_t(((index % size) + size) % size)]);
}

QColor referenceLineColor()
{
    return QColor(0xa0, 0xa0, 0xa4);  // Qt::gray
}
