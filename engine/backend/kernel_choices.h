#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dp {

struct Conv2dShape;

// What measuring a key gives: the chosen kernel and, where the candidates'
// outputs were compared with float64 (conv_accuracy.h), the chosen one's
// error relative to the output's norm, which the cache file keeps beside it.
struct MeasuredChoice {
    MeasuredChoice(int choice) : choice(choice) {}  // timed only: no error measured
    MeasuredChoice(int choice, std::optional<double> relative_error, std::string note = {})
        : choice(choice), relative_error(relative_error), note(std::move(note)) {}
    int choice = 0;
    std::optional<double> relative_error;
    std::string note;  // what --verbose shows beside it, e.g. the candidates refused as inaccurate
};

// A choice this process used, for dp-train --verbose.
struct KernelChoiceUse {
    std::string key;
    int choice = 0;
    std::optional<double> relative_error;  // none: not measured (fixed tuning, an old cache entry)
    bool measured = false;  // in this process; else read from the cache file or fixed
    std::string note;
};

// How an op with several kernels (oneDNN's convolution layouts, cuDNN's
// algorithms) picks one.
enum class KernelTuning {
    cached,  // measured on a shape's first use on this machine, then read from the cache file
    retune,  // measured again in this process, the cache's entries overwritten
    fixed,   // never measured: each op's fixed default, whatever the timings (DP_KERNEL_TUNING=fixed)
};

// The kernel each op shape runs, chosen once per machine and kept in a small
// file, so that every later run on this machine runs the same kernels (the
// same bits for the same settings) and no run pays for measuring twice, as
// cuDNN's benchmark cache and flashlight's DynamicBenchmark do within a
// process. Keys name the machine, the library and the op shape; a file that
// cannot be read or parsed is ignored and rewritten, never fatal.
//
// One per process, shared by every device thread: the first thread to meet
// a key measures while the others wait, so replicas never run different
// kernels. Across processes the same holds through a lock file beside the
// cache (kernel_cache_lock_path): one process measures at a time and writes
// its choice at once, and another that needs the same key waits, then reads
// it, so two runs started together on a cold cache run the same kernels.
class KernelChoices {
public:
    // The choice for `key`: `fixed_choice` when tuning is fixed, else the
    // cached one, else measure()'s (written to the file at once). A
    // negative `fixed_choice` says the op has no rule: it is measured (and
    // cached) under fixed tuning too. A cached choice that `possible` refuses
    // (an edited file, a kernel this build lacks) is measured again and its
    // entry rewritten; so is one without a measured error when
    // `needs_error` (a choice made by timing alone, before the cache compared
    // outputs with float64, may be a kernel that rounds coarser than the
    // precision allows).
    int choose(const std::string& key, int fixed_choice,
               const std::function<MeasuredChoice()>& measure,
               const std::function<bool(int)>& possible = {}, bool needs_error = false);

    // Where the cache lives and how choices are made (the process default:
    // default_kernel_cache_path() and kernel_tuning_from_environment()).
    void configure(std::filesystem::path file, KernelTuning tuning);
    // Called as each run starts: with true (a --retune run) every key is
    // measured again on its next use; with false cached choices are used.
    void retune(bool on);
    KernelTuning tuning() const;
    // How many choices this process measured (not read from the cache).
    int measured() const;
    // Every key this process chose a kernel for, in key order.
    std::vector<KernelChoiceUse> used() const;

    // Writes this process's choices not yet written (choose() writes each
    // at once; this retries those whose write failed), merged into the
    // file's (entries another process wrote meanwhile win, so later runs
    // agree with the earlier one). Returns an empty string, or why the file
    // could not be written, in one line with the fix.
    std::string save();

    // One line of the file: the choice and its measured error, if any.
    struct Entry {
        int choice = 0;
        std::optional<double> relative_error;
    };

private:
    void load_locked();
    std::string save_locked();
    // The entry the cache holds for `key` if it may be used.
    std::optional<Entry> usable_locked(const std::string& key, const std::function<bool(int)>& possible,
                                       bool needs_error) const;
    int use_locked(const std::string& key, const Entry& entry, bool measured, std::string note = {});

    mutable std::mutex mutex_;
    std::filesystem::path file_;
    KernelTuning tuning_ = KernelTuning::cached;
    bool loaded_ = false, retuning_ = false;
    std::map<std::string, Entry> cached_;   // read from the file
    std::map<std::string, Entry> chosen_;   // measured in this process, not yet saved
    std::map<std::string, KernelChoiceUse> used_;
    std::set<std::string> retuned_;       // measured in this process since retune(true)
    std::set<std::string> repaired_;      // measured again: the file's entry was impossible
    int measured_ = 0;
};

// "<machine> | conv forward n64 c6x28x28 o16 k5 s1 p2": the key of a
// convolution pass ("forward", "backward_data", "backward_weights") on a
// machine ("onednn 2.6.3 avx2 | <CPU>", "cudnn 90100 fma | <GPU>").
std::string conv_choice_key(const std::string& machine, const std::string& pass,
                            const Conv2dShape& s);

// The lock file that makes processes measure one at a time: `cache_file`.lock.
std::filesystem::path kernel_cache_lock_path(const std::filesystem::path& cache_file);

// The process's kernel choices.
KernelChoices& kernel_choices();

// kernel-choices.tsv in $DP_WORKBENCH_DATA_DIR, else in the user's data
// folder of the workbench (the run history's folder:
// $XDG_DATA_HOME or ~/.local/share, then "DP Workbench/DP Workbench").
std::filesystem::path default_kernel_cache_path();

// DP_KERNEL_TUNING=cached|fixed (cached when unset); throws dp::Error for
// other values ("retune" included: --retune is a run's setting).
KernelTuning kernel_tuning_from_environment();

// Times `run` `repeats` times per candidate, the candidates taking turns so
// that a burst of noise hits them alike, and returns the index of the
// fastest by its best time (the earlier on ties).
int fastest_candidate(int candidates, int repeats, const std::function<void(int)>& run);

}  // namespace dp
