#pragma once

#include <string>

namespace dp {

// "1 device", "2 devices": a count and its noun as dp-train prints them, the
// singular for exactly one, never "device(s)".
inline std::string counted(long long count, const char* singular, const char* plural)
{
    std::string text = std::to_string(count);
    text += ' ';
    text += count == 1 ? singular : plural;
    return text;
}

}  // namespace dp
