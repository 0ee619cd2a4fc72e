#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "config/train_config.h"

// A command's words in groups that a line break must not separate: the
// program, a switch alone, or an option with its value ("--batch-size", "512").
using CommandWords = std::vector<QStringList>;

// The command that reproduces `config` on a cluster: `processes` MPI ranks,
// one device each, launched by Open MPI on the machines of `hostfile` (none:
// this machine only), running the dp-train at `dpTrain`, with rank 0 writing
// the run record to run.json for the workbench to import. Options at
// dp-train's defaults are left out, except model, batch size, learning rate,
// epochs and seed, which say what the run is.
CommandWords mpirunWords(const dp::TrainConfig& config, int processes,
                         const QString& hostfile = QStringLiteral("hosts"),
                         const QString& dpTrain = QStringLiteral("dp-train"));

// What the command changes of `config`, a sentence each (empty: nothing):
// settings an MPI job of one process per device cannot run, DataParallel
// (ring stands in) and a straggler (left out).
QStringList clusterChanges(const dp::TrainConfig& config);

// `words` as a POSIX shell command: each word quoted where the shell needs
// it, the groups filled into lines of at most `maxColumns` characters (0: one
// line) that end in " \" to continue. A break falls only between groups, so
// never inside a word nor between an option and its value; a group longer than
// a line gets a line of its own. Later lines are indented by two spaces.
QString shellCommand(const CommandWords& words, int maxColumns = 0);

// mpirunWords as one line.
QString mpirunCommand(const dp::TrainConfig& config, int processes,
                      const QString& hostfile = QStringLiteral("hosts"),
                      const QString& dpTrain = QStringLiteral("dp-train"));

// The absolute path of the dp-train program in `folder` (the build and an
// install put it beside dp-workbench), or an empty string if there is none.
QString dpTrainIn(const QString& folder);
