#pragma once

#include <QString>

// The shortest decimal text that reads back as exactly the same value:
// "0.2" for 0.2f, not "0.200000003". Exports and command lines use it so
// that what a user copies reproduces the run bit for bit.
QString numberText(double value);
QString numberText(float value);
