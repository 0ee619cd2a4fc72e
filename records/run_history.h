#pragma once

#include <QString>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"

// A write that failed because another connection holds the database's lock
// (SQLITE_BUSY, SQLITE_LOCKED): the only failure that trying again can clear.
class RunHistoryLocked : public dp::Error
{
public:
    using dp::Error::Error;
};

// Every run's record, kept in an SQLite database that dp-train and the
// workbench share, so that reopening the workbench shows past runs beside
// new ones. save() is called after every epoch: a run that is killed keeps
// the epochs it completed.
//
// Each instance has its own connection; use it on the thread that made it
// (Qt SQL's rule). Failures throw dp::Error with a one-line message that
// names the database file.
class RunHistory
{
public:
    // dp::history_database_path(): $DP_WORKBENCH_DATA_DIR/runs.sqlite, else
    // runs.sqlite in the user's data folder for "DP Workbench". Throws
    // dp::Error when there is no home folder to find it in.
    static QString defaultPath();

    // Opens the database at `path`, creating it (and its folder) if needed,
    // without waiting for another program's lock (the first use then checks it).
    // A path (or journal beside it) that is not a regular file (a device, a
    // pipe, a folder, a link to one) is refused before SQLite opens it.
    explicit RunHistory(const QString& path = defaultPath());
    ~RunHistory();
    RunHistory(const RunHistory&) = delete;
    RunHistory& operator=(const RunHistory&) = delete;

    QString path() const { return path_; }

    // How long a write waits for another connection's lock by default.
    static constexpr std::chrono::milliseconds kLockWait{5000};

    // Inserts the run, or replaces the one with the same id, epochs and all,
    // in one transaction, waiting up to `lock_wait` for another connection's
    // lock (then RunHistoryLocked).
    void save(const dp::RunRecord& record, std::chrono::milliseconds lock_wait = kLockWait);
    // save() of each record, all in one transaction: an import of many files
    // waits for the disk once, not once per run. None is saved if one fails.
    void save(const std::vector<dp::RunRecord>& records, std::chrono::milliseconds lock_wait = kLockWait);
    // Oldest first (by start time). A row this build cannot read (a value
    // out of its range, written by hand or another program) is left out and
    // the others kept; with `skipped`, one line for each row left out,
    // naming the file, the run and the value.
    std::vector<dp::RunRecord> runs(std::vector<std::string>* skipped = nullptr) const;
    // What changed since the last runs() or changedRuns() of this instance,
    // as the history holds it now: runs added since (by anyone), and runs
    // that were running then or are now (another program's training moves
    // on, then ends). How a window follows dp-train without rereading the
    // whole history. Rows this build cannot read are left out.
    std::vector<dp::RunRecord> changedRuns() const;
    std::optional<dp::RunRecord> run(const std::string& id) const;
    // Removing a run that is not there does nothing.
    void remove(const std::string& id);
    // remove() of each id, in one transaction (all or none).
    void remove(const std::vector<std::string>& ids);

private:
    // Creates the tables, upgrades an older file or refuses a foreign one,
    // once; deferred from the constructor while another program held the lock.
    void requireSchema() const;

    // Remembers the running runs among those just read, for changedRuns().
    void followRunning(const std::vector<dp::RunRecord>& read) const;

    QString path_;
    QString connectionName_;
    mutable bool schemaReady_ = false;
    // What changedRuns() reads again: rows after this rowid, and these runs.
    mutable qint64 newestRowid_ = 0;
    mutable std::vector<std::string> followedIds_;
};
