#pragma once

#include <locale.h>

#include <cstdio>
#include <string>

namespace dp {

// Makes the C locale this thread's while it lives, then restores the one
// before. printf's numbers follow LC_NUMERIC, which Qt programs set from
// the environment (QCoreApplication calls setlocale(LC_ALL, "")): under
// de_DE.UTF-8 "%g" of 0.05 writes "0,05", and strtod reads "0.05" as 0.
// Numbers written as text (records, histories, command lines, messages)
// are in the C locale whatever the process's, so every printf of the engine
// and its programs runs in one of these. uselocale is per thread: another
// thread's formatting, and the process's locale, are left as they are.
class CLocaleScope {
public:
    CLocaleScope() : previous_(uselocale(c_locale())) {}
    ~CLocaleScope() { uselocale(previous_); }
    CLocaleScope(const CLocaleScope&) = delete;
    CLocaleScope& operator=(const CLocaleScope&) = delete;

private:
    static locale_t c_locale() {
        static const locale_t c = newlocale(LC_ALL_MASK, "C", locale_t(0));
        return c;
    }
    locale_t previous_;
};

// printf-style formatting into a string of whatever length it needs, in the
// C locale: the engine's one-line messages, summary lines and numbers with a
// set precision.
template <typename... Values>
std::string format(const char* pattern, Values... values) {
    const CLocaleScope c_locale;
    const int length = std::snprintf(nullptr, 0, pattern, values...);
    if (length <= 0) return {};
    std::string text(std::size_t(length), '\0');
    std::snprintf(text.data(), text.size() + 1, pattern, values...);
    return text;
}

// fprintf in the C locale, for the programs' lines with numbers in them.
template <typename... Values>
void print(std::FILE* stream, const char* pattern, Values... values) {
    const CLocaleScope c_locale;
    std::fprintf(stream, pattern, values...);
}

}  // namespace dp
