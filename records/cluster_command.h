#pragma once

#include <QString>

#include "train/train_config.h"

// The shell command that reproduces `config` on a cluster: `processes` MPI
// ranks, one device each, launched by Open MPI on the machines of `hostfile`
// (none: this machine only), with rank 0 writing the run record to run.json
// for the workbench to import. Options at dp-train's defaults are left out,
// except model, batch size, learning rate, epochs and seed, which say what
// the run is.
QString mpirunCommand(const dp::TrainConfig& config, int processes,
                      const QString& hostfile = QStringLiteral("hosts"));
