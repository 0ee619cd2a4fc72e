#pragma once

#include "record/batch_loss_trace.h"

// One training batch's mean loss, placed on every x axis the charts offer:
// what the training worker (runs/) reports, the run's record keeps and the
// loss chart (charts/) draws, so it sits below all three.
using LossSample = dp::BatchLossPoint;
