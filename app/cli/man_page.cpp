#include "man_page.h"

#include "cli_options.h"
#include "core/format.h"
#include "models/model_registry.h"

namespace dp {
namespace {

// Text as troff takes it: a backslash doubled, every '-' a minus (so
// options copy and search as typed), a line starting with '.' or '\''
// guarded, and the help's line breaks joined.
std::string roff(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '-') out += "\\-";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
    return out;
}

}  // namespace

std::string cli_man_page(const std::string& version) {
    std::string page = ".TH DP\\-TRAIN 1 \"\" \"dp\\-train ";
    page += roff(version);
    page += "\" \"DP Workbench\"\n";
    page += ".SH NAME\ndp\\-train \\- train a neural network data\\-parallel on CPU cores or GPUs\n";
    page += ".SH SYNOPSIS\n.B dp\\-train\n[\\fIoptions\\fR]\n";
    page += ".SH DESCRIPTION\n"
            "Trains a model data\\-parallel: each batch is split across the devices, every replica "
            "runs forward and backward on its share, the gradients are all\\-reduced and the "
            "replicas update alike. After each epoch it prints test accuracy and seconds per "
            "epoch. Runs are kept in the history that \\fBdp\\-workbench\\fR(1) shows.\n";
    page += ".SH OPTIONS\n";
    for (const HelpSectionText& section : help_sections()) {
        page += ".SS ";
        page += roff(section.title);
        page += "\n";
        for (const HelpEntry& entry : section.entries) {
            page += ".TP\n\\fB";
            page += roff(entry.flag);
            page += "\\fR";
            if (entry.value_name) {
                page += " \\fI";
                page += roff(entry.value_name);
                page += "\\fR";
            }
            page += "\n";
            page += roff(entry.text);
            page += "\n";
        }
    }
    page += ".SH MODELS\n";
    for (const auto& info : model_registry()) {
        page += ".TP\n\\fB";
        page += roff(info.name);
        page += "\\fR\n";
        page += roff(format("%zu parameters: %s", info.parameters, info.description.c_str()));
        page += "\n";
    }
    page += ".SH EXIT STATUS\n0 done, 1 the run failed (the one\\-line message says why and what "
            "to do), 2 a bad command line, 130 (143, 129, 141) stopped by Ctrl\\-C (SIGTERM, "
            "SIGHUP, SIGPIPE).\n";
    page += ".SH SEE ALSO\n\\fBdp\\-workbench\\fR(1)\n";
    return page;
}

}  // namespace dp
