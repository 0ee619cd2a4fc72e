#pragma once

#include <QString>

#include <string>
#include <vector>

// A run's tags and notes as the runs table shows and edits them (the
// record's RunRecord::tags and notes), as W&B and TensorBoard.dev keep them.

// "baseline, lr sweep": the tags, comma-separated.
QString tagsText(const std::vector<std::string>& tags);
// The tags typed as "baseline, lr sweep,, baseline": each trimmed, empty
// ones and repeats left out, in order.
std::vector<std::string> tagsFromText(const QString& text);
// The notes' first line, with "…" when more follows: what a table cell shows.
QString notesSummary(const std::string& notes);
