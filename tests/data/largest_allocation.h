#pragma once

#include <cstddef>

// The largest single operator new since the last reset, in this process
// (largest_allocation.cpp replaces the global operator new to see them):
// lets a test check that a reader allocates by the data it reads, not by
// what a file's header claims.
void reset_largest_allocation();
std::size_t largest_allocation();
