#pragma once

#include <string>

namespace dp {

// dp-train(1) in troff (man's format), from the same table as --help
// (help_sections), so the two list the same options with the same words.
// Generated at build time by dp-train-man and installed with the programs.
std::string cli_man_page(const std::string& version);

}  // namespace dp
