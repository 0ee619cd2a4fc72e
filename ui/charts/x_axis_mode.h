#pragma once

#include <limits>

// What the charts' x axes count: epochs, training seconds (d2l's Timer), so
// that "accuracy against time" is one switch away, or optimizer steps (the
// global batches so far), TensorBoard's and W&B's default.
enum class XAxisMode { epochs, seconds, steps };

// Where the end of epoch `epoch` (1-based) sits on the x axis of `mode`: the
// epoch, the training seconds by then, or the steps by then. NaN on a steps
// axis for a run whose steps per epoch are not known (0: a record from
// before its batch losses were kept), which has no place there.
inline double epochEndX(XAxisMode mode, int epoch, double secondsSoFar, double stepsPerEpoch)
{
    switch (mode) {
    case XAxisMode::epochs: return epoch;
    case XAxisMode::seconds: return secondsSoFar;
    case XAxisMode::steps:
        return stepsPerEpoch > 0 ? epoch * stepsPerEpoch : std::numeric_limits<double>::quiet_NaN();
    }
    return epoch;
}
