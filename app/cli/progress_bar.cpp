#include "cli/progress_bar.h"

#include <string>

#include <unistd.h>

#include "core/format.h"

namespace dp {

ProgressBar::ProgressBar(std::FILE* stream)
    : stream_(stream), enabled_(isatty(fileno(stream)) == 1) {}

void ProgressBar::update(const BatchProgress& progress, int epochs) {
    if (!enabled_) return;
    constexpr int width = 30;
    const int filled = progress.batch * width / progress.batches_per_epoch;
    const std::string bar = std::string(filled, '=') + std::string(width - filled, ' ');
    dp::print(stream_, "\repoch %d/%d [%s] %d/%d loss %.4f ", progress.epoch, epochs,
              bar.c_str(), progress.batch, progress.batches_per_epoch, progress.loss);
    std::fflush(stream_);
    drawn_ = true;
}

void ProgressBar::clear() {
    if (!drawn_) return;
    std::fprintf(stream_, "\r\033[K");
    std::fflush(stream_);
    drawn_ = false;
}

}  // namespace dp
