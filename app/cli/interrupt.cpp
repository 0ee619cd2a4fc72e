#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>

#include "train/trainer.h"

namespace dp {
namespace {

// Written by the handler, so lock-free atomics only (async-signal-safe).
std::atomic<Trainer*> running_trainer{nullptr};
std::atomic<int> caught_signal{0};
std::atomic<int> later_signals{0};  // SIGINT, SIGTERM, SIGHUP after the first stopping signal
std::atomic<bool> notices_silenced{false};
static_assert(std::atomic<Trainer*>::is_always_lock_free && std::atomic<int>::is_always_lock_free &&
              std::atomic<bool>::is_always_lock_free);

void say(const char* text, std::size_t size) {
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, text, size);
}

void stop_trainer() {
    if (Trainer* trainer = running_trainer.load()) trainer->request_stop();
}

void on_signal(int signal) {
    int none = 0;
    if (caught_signal.compare_exchange_strong(none, signal)) {
        stop_trainer();
        static const char notice[] =
            "\ndp-train: stopping after the batch in flight; the run is recorded as stopped\n";
        static const char pipe_notice[] =
            "dp-train: the output's reader went away: stopping after the batch in flight\n";
        if (notices_silenced.load()) return;
        if (signal == SIGPIPE) say(pipe_notice, sizeof pipe_notice - 1);
        else say(notice, sizeof notice - 1);
        return;
    }
    if (signal == SIGPIPE) return;  // each write to the closed pipe raises another
    if (later_signals.fetch_add(1) + 1 < 2) return;  // a relayed duplicate: hurry only
    // The third: end now, by the signal, as without this handler.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

}  // namespace

void catch_interrupting_signals() {
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (const int signal : kSignals) sigaddset(&action.sa_mask, signal);
    action.sa_flags = SA_RESTART;
    for (const int signal : kSignals) {
        // A signal ignored when dp-train started stays ignored: `nohup` ignores
        // SIGHUP so the run outlives the terminal, a shell's background job
        // ignores Ctrl-C.
        struct sigaction inherited {};
        if (sigaction(signal, nullptr, &inherited) == 0 && inherited.sa_handler == SIG_IGN) continue;
        sigaction(signal, &action, nullptr);
    }
}

StopOnInterrupt::StopOnInterrupt(Trainer& trainer) {
    catch_interrupting_signals();
    running_trainer = &trainer;
    if (caught_signal.load() != 0) trainer.request_stop();
}

StopOnInterrupt::~StopOnInterrupt() {
    // The handlers stay: Ctrl-C between runs is still a stop, not a kill.
    running_trainer = nullptr;
}

void silence_interrupt_notices() { notices_silenced = true; }

int interrupting_signal() { return caught_signal.load(); }

const char* interrupting_signal_name() {
    switch (caught_signal.load()) {
    case SIGINT: return "Ctrl-C";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP (the terminal closed)";
    case SIGPIPE: return "SIGPIPE (the output's reader went away)";
    default: return "a signal";
    }
}

bool hurry_requested() { return later_signals.load() > 0; }

}  // namespace dp
