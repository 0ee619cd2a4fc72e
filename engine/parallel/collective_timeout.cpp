#include "parallel/collective_timeout.h"

#include <algorithm>

#include "core/format.h"
#include "core/setting_ref.h"

namespace dp {
namespace {

// "the all-reduce of step 37"
std::string collective_and_phase(std::string_view collective, const CollectivePhase& phase) {
    std::string text = "the ";
    text += collective;
    if (*phase.text) text.append(" ").append(phase.text);
    if (phase.step) text.append(" ").append(std::to_string(phase.step));
    return text;
}

}  // namespace

std::chrono::steady_clock::duration CollectiveTimeout::limit() const {
    // A century is forever here, and a deadline "now + limit" cannot overflow.
    constexpr double longest = 100 * 365.25 * 24 * 3600;
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(std::min(seconds, longest)));
}

std::string CollectiveTimeout::rank_name(int rank) const {
    if (rank >= 0 && std::size_t(rank) < rank_names.size()) return rank_names[std::size_t(rank)];
    return "rank " + std::to_string(rank);
}

std::string CollectiveTimeout::message(std::span<const int> missing, std::string_view collective,
                                       const CollectivePhase& phase) const {
    const std::string what = collective_and_phase(collective, phase);
    const std::string within = format("within %g s", seconds);
    if (missing.empty())
        return what + " did not complete " + within +
               ": a device, a rank or the network stopped responding; raise " +
               setting("collective_timeout_s") + " if steps are that slow";
    std::string names;
    for (std::size_t i = 0; i < missing.size(); ++i) {
        if (i > 0) names += i + 1 == missing.size() ? " and " : ", ";
        names += rank_name(missing[i]);
    }
    const bool one = missing.size() == 1;
    return names + " did not reach " + what + " " + within + ": " + (one ? "it" : "they") +
           " may be paused, swapping or stuck; raise " + setting("collective_timeout_s") + " if " +
           (one ? "its" : "their") + " steps are that slow";
}

}  // namespace dp
