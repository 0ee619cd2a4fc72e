// Fuzzes the run record JSON reader (record/run_record_json.h), which takes
// the files that dp-train --record and cluster runs write. Bad input must end
// in dp::Error. A record it accepts must survive the trip the workbench makes
// it take: written back as JSON (dp::to_json, the same header), it reads
// again as the same record.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"
#include "fuzz_check.h"
#include "record/run_record_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    dp::RunRecord record;
    try {
        record = dp::run_record_from_json(std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const dp::Error&) {
        return 0;
    }
    const std::string written = dp::to_json(record);
    std::string rewritten;
    try {
        rewritten = dp::to_json(dp::run_record_from_json(written));
    } catch (const dp::Error& error) {
        fuzz_require(false, "a record written by to_json reads back", error.what() + ("\n" + written));
    }
    fuzz_require(rewritten == written, "a record reads back as written", written + "\n" + rewritten);
    return 0;
}
