#pragma once

#include <cstdio>
#include <string>

// A property a harness checks beyond "no crash": when it fails, says which and
// crashes, which is how libFuzzer (and corpus_runner.cpp) learn of a failure.
inline void fuzz_require(bool holds, const char* property, const std::string& detail = {}) {
    if (holds) return;
    std::fprintf(stderr, "fuzz property failed: %s\n%s\n", property, detail.c_str());
    __builtin_trap();
}
