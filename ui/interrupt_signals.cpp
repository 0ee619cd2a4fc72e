#include "interrupt_signals.h"

#include <QSocketNotifier>

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Written by the handler, so lock-free atomics and a plain fd only
// (async-signal-safe). [0]: the handler's end, [1]: the GUI thread's.
int signalSocket[2] = {-1, -1};
std::atomic<int> firstSignal{0};
std::atomic<int> signalsCaught{0};
static_assert(std::atomic<int>::is_always_lock_free);

void onSignal(int signal)
{
    int none = 0;
    firstSignal.compare_exchange_strong(none, signal);
    if (signalsCaught.fetch_add(1) + 1 >= 3) {
        // The third: end now, by the signal, as without this handler.
        ::signal(signal, SIG_DFL);
        ::raise(signal);
        return;
    }
    const int savedErrno = errno;  // the interrupted code may be reading errno
    const char number = char(signal);
    [[maybe_unused]] const auto written = ::write(signalSocket[0], &number, 1);
    errno = savedErrno;
}

}  // namespace

InterruptSignals::InterruptSignals(QObject* parent) : QObject(parent)
{
    firstSignal = 0;
    signalsCaught = 0;
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, signalSocket) != 0)
        return;  // the signals keep their default action: the program ends as before
    notifier_ = new QSocketNotifier(signalSocket[1], QSocketNotifier::Read, this);
    connect(notifier_, &QSocketNotifier::activated, this, &InterruptSignals::readSignals);
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    for (const int signal : kSignals)
        sigaddset(&action.sa_mask, signal);
    action.sa_flags = SA_RESTART;
    for (const int signal : kSignals) {
        struct sigaction inherited {};
        if (sigaction(signal, nullptr, &inherited) == 0 && inherited.sa_handler == SIG_IGN)
            continue;
        sigaction(signal, &action, nullptr);
    }
}

InterruptSignals::~InterruptSignals()
{
    if (!notifier_)
        return;
    for (const int signal : kSignals) {
        struct sigaction current {};
        if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == onSignal)
            ::signal(signal, SIG_DFL);
    }
    delete notifier_;
    ::close(signalSocket[0]);
    ::close(signalSocket[1]);
    signalSocket[0] = signalSocket[1] = -1;
}

int InterruptSignals::caughtSignal() const { return firstSignal.load(); }

QString InterruptSignals::name(int signal)
{
    switch (signal) {
    case SIGINT: return QStringLiteral("Ctrl-C");
    case SIGTERM: return QStringLiteral("SIGTERM");
    case SIGHUP: return QStringLiteral("SIGHUP (the session ended)");
    default: return QStringLiteral("signal %1").arg(signal);
    }
}

void InterruptSignals::readSignals()
{
    char numbers[16];
    while (::read(signalSocket[1], numbers, sizeof numbers) > 0) {
    }
    // The first signal asks the window to stop and quit; later ones (before
    // the third, which the handler ends the program by) ask nothing more.
    if (!announced_) {
        announced_ = true;
        emit interrupted(firstSignal.load());
    }
}
