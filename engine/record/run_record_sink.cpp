#include "record/run_record_sink.h"

#include "record/run_record_json.h"

namespace dp {

void JsonRecordFile::write(const RunRecord& record) { write_run_record(file_, record); }

bool JsonRecordFile::holds_failure(const std::string& id) const {
    try {
        const RunRecord stored = read_run_record(file_);
        return stored.id == id && stored.status == RunStatus::failed;
    } catch (const std::exception&) {
        return false;  // none yet, or not a record: it is written over
    }
}

}  // namespace dp
