#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "record/run_record.h"

// What the user changed of a run while it trains (its name, tags and
// notes), set on the GUI thread and laid over every later write of the
// run's record on the training thread, where the record lives
// (study/study_runner.h): the run's next epoch and its end keep them, as a
// run's settings never could be changed under it.
class UserEditsInFlight {
public:
    void rename(const std::string& id, const std::string& name);
    void annotate(const std::string& id, const std::vector<std::string>& tags, const std::string& notes);
    // `record` with the user's edits of it, if any.
    dp::RunRecord appliedTo(dp::RunRecord record) const;
    // Run `id` ended: its edits are in its last record.
    void forget(const std::string& id);

private:
    struct Edits {
        bool named = false;
        std::string name;
        bool annotated = false;
        std::vector<std::string> tags;
        std::string notes;
    };
    mutable std::mutex mutex_;
    std::map<std::string, Edits> byRun_;
};
