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
static_assert(std::atomic<Trainer*>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void on_signal(int signal) {
    if (caught_signal.exchange(signal) != 0) {
        // The second: end now, by the signal, as without this handler.
        ::signal(signal, SIG_DFL);
        ::raise(signal);
        return;
    }
    static const char notice[] =
        "\ndp-train: stopping after the batch in flight (press Ctrl-C again to quit at once)\n";
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, notice, sizeof notice - 1);
    if (Trainer* trainer = running_trainer.load()) trainer->request_stop();
}

}  // namespace

StopOnInterrupt::StopOnInterrupt(Trainer& trainer) {
    running_trainer = &trainer;
    // A signal that came between two runs of a comparison stops the next at once.
    if (caught_signal.load() != 0) trainer.request_stop();
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

StopOnInterrupt::~StopOnInterrupt() {
    // The handler stays: Ctrl-C between runs is still a stop, not a kill.
    running_trainer = nullptr;
}

int interrupting_signal() { return caught_signal.load(); }

}  // namespace dp
