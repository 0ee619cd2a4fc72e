#pragma once

#include <cstdio>

#include "train/train_observer.h"

namespace dp {

// A one-line progress bar redrawn in place on a terminal; silent elsewhere,
// so logs and pipes get only the per-epoch lines.
class ProgressBar {
public:
    explicit ProgressBar(std::FILE* stream);

    void update(const BatchProgress& progress, int epochs);
    void clear();

private:
    std::FILE* stream_;
    bool enabled_;
    bool drawn_ = false;
};

}  // namespace dp
