#pragma once
// A run small enough to train in a test on any machine in well under a
// second: PyTorch's DataParallel tutorial's linear model on the random data
// set, samples / batch_size steps an epoch.

#include "config/train_config.h"

inline dp::TrainConfig small_linear_run(int samples, int batch_size, int epochs) {
    dp::TrainConfig config;
    config.model = "linear";
    config.dataset = "random";
    config.samples = samples;
    config.batch_size = batch_size;
    config.epochs = epochs;
    return config;
}
