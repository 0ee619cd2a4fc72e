#include "user_edits_in_flight.h"

void UserEditsInFlight::rename(const std::string& id, const std::string& name)
{
    const std::lock_guard lock(mutex_);
    Edits& edits = byRun_[id];
    edits.named = true;
    edits.name = name;
}

void UserEditsInFlight::annotate(const std::string& id, const std::vector<std::string>& tags,
                                 const std::string& notes)
{
    const std::lock_guard lock(mutex_);
    Edits& edits = byRun_[id];
    edits.annotated = true;
    edits.tags = tags;
    edits.notes = notes;
}

dp::RunRecord UserEditsInFlight::appliedTo(dp::RunRecord record) const
{
    const std::lock_guard lock(mutex_);
    const auto found = byRun_.find(record.id);
    if (found == byRun_.end())
        return record;
    if (found->second.named)
        record.name = found->second.name;
    if (found->second.annotated) {
        record.tags = found->second.tags;
        record.notes = found->second.notes;
    }
    return record;
}

void UserEditsInFlight::forget(const std::string& id)
{
    const std::lock_guard lock(mutex_);
    byRun_.erase(id);
}
