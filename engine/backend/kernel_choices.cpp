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

// v2 adds the chosen kernel's measured error (relative to its output's norm,
// conv_accuracy.h) as an optional third field; v1 files are still read,
// their entries without an error.
constexpr const char* kHeader = "# DP Workbench kernel choices v2: key<TAB>choice[<TAB>relative error]";
constexpr const char* kHeaderV1 = "# DP Workbench kernel choices v1: key<TAB>choice";

using Entries = std::map<std::string, KernelChoices::Entry>;

// The number `text` holds in full, or none.
template <typename Number>
std::optional<Number> parse_whole(const std::string& text, Number (*parse)(const char*, char**)) {
    char* end = nullptr;
    const Number value = parse(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
    return value;
}

// The file's entries, or none when it is missing, not a regular file, over
// its size cap or any line is malformed (a half-written or foreign file is
// rebuilt, not trusted in part).
Entries read_cache(const std::filesystem::path& file) {
    std::string text;
    try {
        text = read_bounded_file(file, read_limit::kernel_cache);
    } catch (const Error&) {
        return {};
    }
    Entries entries;
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || (line != kHeader && line != kHeaderV1)) return {};
    const bool has_errors = line == kHeader;
    const auto to_long = [](const char* text, char** end) { return std::strtol(text, end, 10); };
    const auto to_double = [](const char* text, char** end) { return std::strtod(text, end); };
    while (std::getline(in, line)) {
        auto tab = line.rfind('\t');
        if (tab == std::string::npos || tab == 0) return {};
        KernelChoices::Entry entry;
        // A third field, after the choice, is the measured error.
        const auto first_tab = line.find('\t');
        if (has_errors && first_tab != tab) {
            const auto error = parse_whole<double>(line.substr(tab + 1), to_double);
            if (!error || !(*error >= 0)) return {};  // inf: a kernel whose output was not finite
            entry.relative_error = *error;
            line.resize(tab);
            tab = line.rfind('\t');
        }
        const auto choice = parse_whole<long>(line.substr(tab + 1), to_long);
        if (!choice || *choice < 0 || *choice > 1000) return {};
        entry.choice = int(*choice);
        entries[line.substr(0, tab)] = entry;
    }
    return entries;
}

std::string error_field(const KernelChoices::Entry& entry) {
    return entry.relative_error ? format("\t%.3e", *entry.relative_error) : "";
}

}  // namespace

int KernelChoices::choose(const std::string& key, int fixed_choice,
                          const std::function<MeasuredChoice()>& measure,
                          const std::function<bool(int)>& possible, bool needs_error) {
    std::lock_guard lock(mutex_);
    if (tuning_ == KernelTuning::fixed && fixed_choice >= 0)
        return use_locked(key, {fixed_choice, std::nullopt}, false, "fixed by DP_KERNEL_TUNING=fixed");
    load_locked();
    if (const auto usable = usable_locked(key, possible, needs_error))
        return use_locked(key, *usable, false);
    // One process measures at a time: another may have measured this key
    // while this one waited, and then its choice is this one's too.
    const FileLock one_process_at_a_time(kernel_cache_lock_path(file_));
    for (const auto& [written_key, written_entry] : read_cache(file_))
        cached_[written_key] = written_entry;
    if (const auto usable = usable_locked(key, possible, needs_error))
        return use_locked(key, *usable, false);
    // Measured under the lock: a second device thread with the same shape
    // waits for this choice instead of measuring one of its own.
    const MeasuredChoice measured = measure();
    ++measured_;
    const Entry entry{measured.choice, measured.relative_error};
    chosen_[key] = entry;
    if (retuning_) retuned_.insert(key);
    // The entry was impossible, or lacked the error this key needs.
    if (cached_.contains(key)) repaired_.insert(key);
    // Written while the lock is held, for the process waiting on it. A
    // failure keeps the choice in memory; save() tries again and reports it.
    save_locked();
    return use_locked(key, entry, true, measured.note);
}

int KernelChoices::use_locked(const std::string& key, const Entry& entry, bool measured,
                              std::string note) {
    used_[key] = {.key = key,
                  .choice = entry.choice,
                  .relative_error = entry.relative_error,
                  .measured = measured,
                  .note = std::move(note)};
    return entry.choice;
}

std::optional<KernelChoices::Entry> KernelChoices::usable_locked(
    const std::string& key, const std::function<bool(int)>& possible, bool needs_error) const {
    if (retuning_ && !retuned_.contains(key)) return std::nullopt;
    if (const auto it = chosen_.find(key); it != chosen_.end()) return it->second;
    if (const auto it = cached_.find(key);
        it != cached_.end() && (!possible || possible(it->second.choice)) &&
        (!needs_error || it->second.relative_error))
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
    used_.clear();
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

std::vector<KernelChoiceUse> KernelChoices::used() const {
    std::lock_guard lock(mutex_);
    std::vector<KernelChoiceUse> uses;
    for (const auto& [key, use] : used_) uses.push_back(use);
    return uses;
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
    Entries merged = read_cache(file_);
    for (const auto& [key, entry] : chosen_) {
        if (retuned_.contains(key) || repaired_.contains(key)) merged[key] = entry;
        else merged.emplace(key, entry);  // another process's earlier choice wins
    }
    const std::string fix = ": set DP_WORKBENCH_DATA_DIR to a folder you can write";
    std::error_code error;
    std::filesystem::create_directories(file_.parent_path(), error);
    if (error)
        return "kernel cache " + file_.string() + ": cannot create its folder (" + error.message() +
               ")" + fix;
    try {
        std::string text = std::string(kHeader) + "\n";
        for (const auto& [key, entry] : merged)
            text += key + "\t" + std::to_string(entry.choice) + error_field(entry) + "\n";
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
