#pragma once

// One training batch's mean loss, placed on both x axes the charts offer:
// what the training worker (runs/) reports and the loss chart (charts/)
// draws, so it sits below both.
struct LossSample {
    double epoch = 0;    // fractional: 1.5 is halfway through epoch 2 (epochs count from 1)
    double seconds = 0;  // training seconds since the run began (d2l's Timer, as EpochMetrics)
    double loss = 0;
};
