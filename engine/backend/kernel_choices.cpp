#include "backend/kernel_choices.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <system_error>
#include <vector>

#include "backend/backend.h"
#include "core/error.h"
#include "core/format.h"
#include "io/atomic_file.h"
#include "io/bounded_file.h"
#include "io/file_lock.h"
#include "io/workbench_files.h"

namespace dp {
namespace {

constexpr const char* kHeader = "# DP Workbench kernel choices v1: key<TAB>choice";

// The file's entries, or none when it is missing, not a regular file, over
// its size cap or any line is malformed (a half-written or foreign file is
// rebuilt, not trusted in part).
std::map<std::string, int> read_cache(const std::filesystem::path& file) {
    std::string text;
    try {
        text = read_bounded_file(file, read_limit::kernel_cache);
    } catch (const Error&) {
        return {};
    }
    std::map<std::string, int> entries;
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != kHeader) return {};
    while (std::getline(in, line)) {
        const auto tab = line.rfind('\t');
        if (tab == std::string::npos || tab == 0) return {};
        char* end = nullptr;
        const long choice = std::strtol(line.c_str() + tab + 1, &end, 10);
        if (end == line.c_str() + tab + 1 || *end != '\0' || choice < 0 || choice > 1000) return {};
        entries[line.substr(0, tab)] = int(choice);
    }
    return entries;
}

}  // namespace

int KernelChoices::choose(const std::string& key, int fixed_choice,
                          const std::function<int()>& measure,
                          const std::function<bool(int)>& possible) {
    std::lock_guard lock(mutex_);
    if (tuning_ == KernelTuning::fixed && fixed_choice >= 0) return fixed_choice;
    load_locked();
    if (const auto usable = usable_locked(key, possible)) return *usable;
    // One process measures at a time: another may have measured this key
    // while this one waited, and then its choice is this one's too.
    const FileLock one_process_at_a_time(kernel_cache_lock_path(file_));
    for (const auto& [written_key, written_choice] : read_cache(file_))
        cached_[written_key] = written_choice;
    if (const auto usable = usable_locked(key, possible)) return *usable;
    // Measured under the lock: a second device thread with the same shape
    // waits for this choice instead of measuring one of its own.
    const int choice = measure();
    ++measured_;
    chosen_[key] = choice;
    if (retuning_) retuned_.insert(key);
    if (cached_.contains(key)) repaired_.insert(key);  // the entry was impossible
    // Written while the lock is held, for the process waiting on it. A
    // failure keeps the choice in memory; save() tries again and reports it.
    save_locked();
    return choice;
}

std::optional<int> KernelChoices::usable_locked(const std::string& key,
                                                const std::function<bool(int)>& possible) const {
    if (retuning_ && !retuned_.contains(key)) return std::nullopt;
    if (const auto it = chosen_.find(key); it != chosen_.end()) return it->second;
    if (const auto it = cached_.find(key); it != cached_.end() && (!possible || possible(it->second)))
        return it->second;
    return std::nullopt;
}

void KernelChoices::configure(std::filesystem::path file, KernelTuning tuning) {
    std::lock_guard lock(mutex_);
    file_ = std::move(file);
    tuning_ = tuning == KernelTuning::retune ? KernelTuning::cached : tuning;
    retuning_ = tuning == KernelTuning::retune;
    loaded_ = false;
    cached_.clear();
    chosen_.clear();
    retuned_.clear();
    repaired_.clear();
}

void KernelChoices::retune(bool on) {
    std::lock_guard lock(mutex_);
    retuning_ = on;
    retuned_.clear();
}

KernelTuning KernelChoices::tuning() const {
    std::lock_guard lock(mutex_);
    return retuning_ ? KernelTuning::retune : tuning_;
}

int KernelChoices::measured() const {
    std::lock_guard lock(mutex_);
    return measured_;
}

void KernelChoices::load_locked() {
    if (loaded_) return;
    loaded_ = true;
    if (file_.empty()) file_ = default_kernel_cache_path();
    cached_ = read_cache(file_);
}

std::string KernelChoices::save() {
    std::lock_guard lock(mutex_);
    return save_locked();
}

std::string KernelChoices::save_locked() {
    if (chosen_.empty()) return {};
    std::map<std::string, int> merged = read_cache(file_);
    for (const auto& [key, choice] : chosen_) {
        if (retuned_.contains(key) || repaired_.contains(key)) merged[key] = choice;
        else merged.emplace(key, choice);  // another process's earlier choice wins
    }
    const std::string fix = ": set DP_WORKBENCH_DATA_DIR to a folder you can write";
    std::error_code error;
    std::filesystem::create_directories(file_.parent_path(), error);
    if (error)
        return "kernel cache " + file_.string() + ": cannot create its folder (" + error.message() +
               ")" + fix;
    try {
        std::string text = std::string(kHeader) + "\n";
        for (const auto& [key, choice] : merged) text += key + "\t" + std::to_string(choice) + "\n";
        AtomicFile out(file_);
        out.write(text);
        out.commit();
    } catch (const Error& failure) {
        return "kernel cache " + std::string(failure.what()) + fix;  // the choices stay in memory
    }
    // From now on this process uses what the file says, as later runs will.
    cached_ = std::move(merged);
    chosen_.clear();
    repaired_.clear();
    return {};
}

std::string conv_choice_key(const std::string& machine, const std::string& pass,
                            const Conv2dShape& s) {
    return machine + " | conv " + pass +
           format(" n%d c%dx%dx%d o%d k%d s%d p%d", s.batch, s.in_channels, s.in_h, s.in_w,
                  s.out_channels, s.kernel, s.stride, s.pad);
}

KernelChoices& kernel_choices() {
    static KernelChoices* choices = [] {
        auto* made = new KernelChoices;  // never destroyed: device threads may outlive main()
        made->configure(default_kernel_cache_path(), kernel_tuning_from_environment());
        return made;
    }();
    return *choices;
}

std::filesystem::path kernel_cache_lock_path(const std::filesystem::path& cache_file) {
    return cache_file.string() + ".lock";
}

std::filesystem::path default_kernel_cache_path() {
    return workbench_data_folder() / "kernel-choices.tsv";
}

KernelTuning kernel_tuning_from_environment() {
    const char* value = std::getenv("DP_KERNEL_TUNING");
    const std::string text = value ? value : "";
    if (text.empty() || text == "cached") return KernelTuning::cached;
    if (text == "fixed") return KernelTuning::fixed;
    // Re-measuring is a run's setting (--retune), which the run record reports
    // as not deterministic; each run sets it, so an environment value would be lost.
    if (text == "retune")
        throw Error("DP_KERNEL_TUNING=retune is not a mode: re-measure the kernels with "
                    "dp-train --retune (workbench: Run > Re-measure kernels on the next run)");
    throw Error("DP_KERNEL_TUNING must be cached or fixed (got '" + text + "')");
}

int fastest_candidate(int candidates, int repeats, const std::function<void(int)>& run) {
    std::vector<double> best(std::size_t(candidates), std::numeric_limits<double>::infinity());
    for (int repeat = 0; repeat < repeats; ++repeat)
        for (int candidate = 0; candidate < candidates; ++candidate) {
            const auto start = std::chrono::steady_clock::now();
            run(candidate);
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            best[std::size_t(candidate)] = std::min(best[std::size_t(candidate)], took.count());
        }
    return int(std::min_element(best.begin(), best.end()) - best.begin());
}

}  // namespace dp
