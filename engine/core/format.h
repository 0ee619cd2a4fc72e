#pragma once

#include <cstdio>
#include <string>

namespace dp {

// printf-style formatting into a string of whatever length it needs: the
// engine's one-line messages, summary lines and numbers with a set precision.
template <typename... Values>
std::string format(const char* pattern, Values... values) {
    const int length = std::snprintf(nullptr, 0, pattern, values...);
    if (length <= 0) return {};
    std::string text(std::size_t(length), '\0');
    std::snprintf(text.data(), text.size() + 1, pattern, values...);
    return text;
}

}  // namespace dp
