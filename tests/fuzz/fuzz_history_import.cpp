// Fuzzes the history import: what File > Import run record... does
// (MainWindow::importRunRecord): dp::read_run_record(path) reads the file, then
// RunHistory::save() stores it in the SQLite history. Bad input must end in
// dp::Error. An imported run must read back from the history as it was
// imported; it is then removed, so the database stays small.

#include <QCoreApplication>
#include <QString>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "core/error.h"
#include "fuzz_check.h"
#include "record/run_record_json.h"
#include "run_history.h"
#include "scratch_file.h"

namespace {

// Qt's SQL driver plugins are found through the application object.
QCoreApplication& application() {
    static int argc = 1;
    static char name[] = "fuzz_history_import";
    static char* argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
    return app;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    application();
    static ScratchFile scratch("import.json");
    static RunHistory history(QString::fromStdString((scratch.folder() / "runs.sqlite").string()));
    const std::filesystem::path path = scratch.write(data, size);

    dp::RunRecord record;
    try {
        record = dp::read_run_record(path);
    } catch (const dp::Error&) {
        return 0;
    }
    const std::string imported = dp::to_json(record);
    try {
        history.save(record);
        const std::optional<dp::RunRecord> stored = history.run(record.id);
        fuzz_require(stored.has_value(), "a saved run is in the history", imported);
        fuzz_require(dp::to_json(*stored) == imported, "a run reads back from the history as imported",
                     imported + "\n" + dp::to_json(*stored));
        history.remove(record.id);
    } catch (const dp::Error& error) {
        fuzz_require(false, "a run record that reads also saves", error.what() + ("\n" + imported));
    }
    return 0;
}
