// The file rules every read and write goes through: an input is opened
// without blocking, only as a regular file and within its size cap
// (io/bounded_file.h); an atomic write keeps the old file's permissions and
// clears what killed writers left (io/atomic_file.h); an output is never
// another output or a file the run keeps, however it is spelled, and its
// name leaves room for its temporary (io/output_file.h); JSON strings are
// valid UTF-8 whatever bytes a path holds (io/json.h).
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "error_of.h"
#include "io/atomic_file.h"
#include "io/bounded_file.h"
#include "io/json.h"
#include "io/output_file.h"

namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

void write_atomically(const fs::path& file, const std::string& text) {
    dp::AtomicFile out(file);
    out.write(text);
    out.commit();
}

// A pid no process has: past the kernel's pid_max.
constexpr int kNoSuchPid = 99999999;

void age(const fs::path& file, int seconds) {
    const timeval old[2] = {{::time(nullptr) - seconds, 0}, {::time(nullptr) - seconds, 0}};
    ::utimes(file.c_str(), old);
}

}  // namespace

class TestFileSafety : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path path(const std::string& name) const { return fs::path(dir_.path().toStdString()) / name; }

private slots:
    // D18: a FIFO at kernel-choices.tsv hung dp-train in its open; a link to
    // /dev/zero read until memory ran out. Neither is read now, and both say why.
    void onlyRegularFilesWithinTheirCapAreRead() {
        const fs::path fifo = path("pipe");
        QCOMPARE(::mkfifo(fifo.c_str(), 0644), 0);
        const std::string pipe_error = error_of([&] { dp::read_bounded_file(fifo, 1 << 20); });
        QVERIFY2(pipe_error.find("is a named pipe, not a regular file") != std::string::npos, pipe_error.c_str());
        fs::create_symlink("/dev/zero", path("zero"));
        const std::string zero_error = error_of([&] { dp::read_bounded_file(path("zero"), 1 << 20); });
        QVERIFY2(zero_error.find("is a character device, not a regular file") != std::string::npos,
                 zero_error.c_str());
        write_text(path("big"), std::string(2048, 'x'));
        const std::string big_error = error_of([&] { dp::read_bounded_file(path("big"), 1024); });
        QVERIFY2(big_error.find("is 2048 bytes, over") != std::string::npos, big_error.c_str());
        QCOMPARE(dp::read_bounded_file(path("big"), 2048).size(), std::size_t(2048));
        const std::string missing = error_of([&] { dp::read_bounded_file(path("missing"), 1); });
        QVERIFY2(missing.find("file not found") != std::string::npos, missing.c_str());
    }

    // D28: an atomic write turned a 0600 or 0444 file into 0644.
    void atomicWritesKeepTheOldFilesPermissions() {
        for (const mode_t mode : {mode_t(0600), mode_t(0444), mode_t(0640)}) {
            const fs::path file = path("kept-mode");
            write_text(file, "old");
            QCOMPARE(::chmod(file.c_str(), mode), 0);
            write_atomically(file, "new");
            struct stat status {};
            QCOMPARE(::stat(file.c_str(), &status), 0);
            QCOMPARE(status.st_mode & 07777, mode);
            fs::remove(file);
        }
        write_atomically(path("fresh"), "new");
        struct stat status {};
        QCOMPARE(::stat(path("fresh").c_str(), &status), 0);
        QCOMPARE(status.st_mode & 07777, mode_t(0644));
    }

    // D28: a writer killed between fsync and rename left its temporary for
    // ever (44 MB for ResNet-18). The next write of the same file removes
    // those of writers that are gone, once they are a minute old; a live
    // writer's, a young one and other files' stay.
    void staleTemporariesAreRemovedByTheNextWrite() {
        const fs::path file = path("model.safetensors");
        const fs::path stale = path("model.safetensors.tmp." + std::to_string(kNoSuchPid) + ".aB3dEf");
        const fs::path young = path("model.safetensors.tmp." + std::to_string(kNoSuchPid) + ".zzzzzz");
        const fs::path live = path("model.safetensors.tmp." + std::to_string(::getpid()) + ".qwerty");
        const fs::path other = path("other.safetensors.tmp." + std::to_string(kNoSuchPid) + ".aB3dEf");
        for (const fs::path& leftover : {stale, young, live, other}) write_text(leftover, "part");
        for (const fs::path& leftover : {stale, live, other}) age(leftover, 3600);
        write_atomically(file, "whole");
        QVERIFY(!fs::exists(stale));
        QVERIFY(fs::exists(young));
        QVERIFY(fs::exists(live));
        QVERIFY(fs::exists(other));
    }

    // D2: one file under two names (a hard link, a symlink, "..") is one file.
    void sameFileSeesThroughLinksAndDots() {
        fs::create_directories(path("sub"));
        write_text(path("data"), "x");
        fs::create_hard_link(path("data"), path("hard"));
        fs::create_symlink(path("data"), path("soft"));
        QVERIFY(dp::same_file(path("data"), path("hard")));
        QVERIFY(dp::same_file(path("data"), path("soft")));
        QVERIFY(dp::same_file(path("data"), path("sub") / ".." / "data"));
        QVERIFY(dp::same_file(path("absent"), path("sub") / ".." / "absent"));
        fs::create_symlink(path("absent-target"), path("dangling"));
        QVERIFY(dp::same_file(path("dangling"), path("absent-target")));
        QVERIFY(!dp::same_file(path("data"), path("absent")));
        write_text(path("copy"), "x");
        QVERIFY(!dp::same_file(path("data"), path("copy")));
    }

    // D2: an output that is another output, or a file the run keeps, is refused.
    void anOutputIsNeverAnotherOutputOrAKeptFile() {
        fs::create_directories(path("sub2"));
        write_text(path("runs.sqlite"), "db");
        const std::string kept = error_of([&] {
            dp::check_output_paths({{path("sub2/../runs.sqlite"), "--record"}},
                                   {{path("runs.sqlite"), "the run history"}});
        });
        QVERIFY2(kept.find("--record") != std::string::npos &&
                     kept.find("is the run history") != std::string::npos &&
                     kept.find("choose another path") != std::string::npos,
                 kept.c_str());
        const std::string twice = error_of([&] {
            dp::check_output_paths({{path("x"), "--save"}, {path("x"), "--record"}}, {});
        });
        QVERIFY2(twice.find("--record") != std::string::npos &&
                     twice.find("is the same file as --save") != std::string::npos,
                 twice.c_str());
        QCOMPARE(error_of([&] { dp::check_output_paths({{path("a"), "--save"}, {path("b"), "--record"}}, {}); }),
                 std::string());
    }

    // Adversarial pass: --record /proc/self/fd/1 with stdout a pipe passed
    // the check (readlink gives "pipe:[N]", not a path) and failed after the
    // first epoch; what the path opens as is checked too.
    void aPathThatOpensAsAPipeIsRefused() {
        int ends[2];
        QCOMPARE(::pipe(ends), 0);
        const fs::path magic = "/proc/self/fd/" + std::to_string(ends[1]);
        const std::string error = error_of([&] { dp::check_output_file(magic, "--record"); });
        ::close(ends[0]);
        ::close(ends[1]);
        QVERIFY2(error.find("is a named pipe, not a file") != std::string::npos, error.c_str());
    }

    // D10: a 245-255 byte name passed the up-front check and failed after
    // the first epoch, when its temporary (22 bytes more) was created.
    void aNameLeavesRoomForItsTemporary() {
        const std::string longest = std::string(255 - dp::kTemporaryNameExtra, 'n');
        QCOMPARE(error_of([&] { dp::check_output_file(path(longest), "--save"); }), std::string());
        write_atomically(path(longest), "fits");
        const std::string too_long = error_of([&] { dp::check_output_file(path(longest + "n"), "--save"); });
        QVERIFY2(too_long.find("choose a name of at most 233 bytes") != std::string::npos, too_long.c_str());
    }

    // D11: a 256-byte component or a path over 4096 bytes ended in
    // "filesystem error: symlink_status".
    void overlongPathsAreOneLineErrors() {
        const std::string component = error_of(
            [&] { dp::check_output_file(path(std::string(256, 'c')) / "file", "--record"); });
        QVERIFY2(component.find("over the 255-byte limit of a file name: choose a shorter name") !=
                     std::string::npos, component.c_str());
        fs::path deep = path("d");
        for (int i = 0; i < 40; ++i) deep /= std::string(200, 'd');
        const std::string whole = error_of([&] { dp::check_output_file(deep / "file", "--record"); });
        QVERIFY2(whole.find("over the system's limit of 4095: choose a shorter path") != std::string::npos,
                 whole.c_str());
        QVERIFY(whole.find("filesystem error") == std::string::npos && whole.size() < 400);
    }

    // D15: a path with non-UTF-8 bytes went raw into JSON, which is then invalid.
    void jsonStringsAreValidUtf8WhateverTheBytes() {
        const std::string latin1 = "/data/caf\xE9/\xFF\xFE";
        QVERIFY(!dp::is_valid_utf8(latin1));
        const std::string json = dp::json_string(latin1);
        QCOMPARE(json, std::string("\"/data/caf\xEF\xBF\xBD/\xEF\xBF\xBD\xEF\xBF\xBD\""));
        QVERIFY(dp::is_valid_utf8(json));
        const std::string valid = "caf\xC3\xA9 \xF0\x9F\x98\x80";
        QCOMPARE(dp::json_string(valid), "\"" + valid + "\"");
        QCOMPARE(dp::json_string("\xED\xA0\x80"), std::string("\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""));
    }
};

QTEST_APPLESS_MAIN(TestFileSafety)
#include "test_file_safety.moc"
