// Tests of the safetensors reader and writer and of model checkpoints:
// bit-exact round trips, the header's padding and the data's alignment,
// byte-exact golden files, one-line errors for every kind of corrupt file,
// a brief fuzz, atomic writes, and strict loading.
//
// The golden files are written out by hand from the format's specification:
// Debian 12 packages no safetensors for Python, so no file could be generated
// with PyTorch. Their first three are the reference implementation's own test
// vectors (safetensors/src/tensor.rs: test_serialization,
// test_serialization_forced_alignement, test_empty); the others follow the
// same rules: tensors sorted by descending dtype, then name; compact JSON,
// "__metadata__" first; spaces up to a multiple of 8.

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "core/error.h"
#include "backend/reference/reference_backend.h"
#include "error_of.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/model_checkpoint.h"
#include "io/safetensors.h"
#include "models/lenet.h"

namespace {

namespace fs = std::filesystem;
using dp::NamedBuffer;
using dp::ParameterInfo;
using dp::TensorEntry;
using Metadata = std::map<std::string, std::string>;

std::string file_bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Whether an atomic write left a temporary (`name`.tmp.XXXXXX) in `folder`.
bool has_temporaries(const fs::path& folder) {
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().filename().string().find(".tmp.") != std::string::npos) return true;
    return false;
}

void write_bytes(const fs::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

template <typename T>
std::string little_endian(std::initializer_list<T> values) {
    std::string bytes;
    for (T value : values) bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
    return bytes;
}

// A file in the format: header length, header, data.
std::string safetensors_bytes(const std::string& header, const std::string& data) {
    return little_endian<std::uint64_t>({header.size()}) + header + data;
}

// A valid two-tensor file that the corruption tests start from.
const std::string kValidHeader = R"({"b":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
                                 R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})";
const std::string kValidData = little_endian<std::int64_t>({-3}) + little_endian<float>({1.5f, -2.f});

std::vector<ParameterInfo> lenet_infos(int classes) {
    auto model = dp::make_lenet({1, 28, 28}, classes);
    model->declare();
    return model->parameters().infos();
}

std::size_t total_size(const std::vector<ParameterInfo>& infos) {
    return infos.back().offset + infos.back().size;
}

// Values with varied bit patterns: NaN payloads, infinities, denormals, -0.
std::vector<float> varied_values(std::size_t count, std::uint32_t seed) {
    std::mt19937 bits(seed);
    std::vector<float> values(count);
    for (float& value : values) value = std::bit_cast<float>(std::uint32_t(bits()));
    return values;
}

// varied_values without NaN and infinities: weights a checkpoint may hold
// (the exponent's top bit cleared where all its bits were set).
std::vector<float> finite_varied_values(std::size_t count, std::uint32_t seed) {
    std::vector<float> values = varied_values(count, seed);
    for (float& value : values)
        if (!std::isfinite(value)) value = std::bit_cast<float>(std::bit_cast<std::uint32_t>(value) & ~0x40000000u);
    return values;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Makes writes past `bytes` fail with EFBIG for as long as it lives.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &saved_);
        old_handler_ = signal(SIGXFSZ, SIG_IGN);  // else the process is killed
        const rlimit limit{bytes, saved_.rlim_max};
        setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &saved_);
        signal(SIGXFSZ, old_handler_);
    }

private:
    rlimit saved_{};
    sighandler_t old_handler_ = nullptr;
};

}  // namespace

class TestCheckpoint : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    fs::path path(const char* name) const { return fs::path(dir_.path().toStdString()) / name; }

    // Checks `action` throws dp::Error, on one line, naming `file` and containing `part`.
    void expect_error(const std::function<void()>& action, const fs::path& file, const QString& part) {
        const QString message = QString::fromStdString(error_of(action));
        QVERIFY2(!message.isEmpty(), "no dp::Error thrown");
        QVERIFY2(message.startsWith(QString::fromStdString(file.string()) + ": "), qPrintable(message));
        QVERIFY2(message.contains(part), qPrintable(message + " lacks: " + part));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void roundTripKeepsExactBits() {
        const std::vector<float> floats = varied_values(1000, 1);
        const std::vector<std::int64_t> integers{std::numeric_limits<std::int64_t>::min(), -1, 0,
                                                 std::numeric_limits<std::int64_t>::max()};
        const std::vector<TensorEntry> tensors{
            dp::f32_tensor("layer.weight", {10, 4, 5, 5}, floats),
            dp::i64_tensor("bn.num_batches_tracked", {}, std::span(integers).first(1)),
            dp::i64_tensor("counts", {2, 2}, integers),
            dp::f32_tensor("empty", {3, 0}, {}),
            dp::f32_tensor("quote\"back\\slash/é", {1}, std::span(floats).first(1)),
        };
        const Metadata metadata{{"note", "tab\tnewline\n\"é€😀"}, {"format", "pt"}};
        const fs::path file = path("round_trip.safetensors");
        dp::write_safetensors_atomically(file, tensors, metadata);

        const dp::SafetensorsFile read = dp::read_safetensors(file);
        QCOMPARE(read.metadata, metadata);
        QCOMPARE(read.tensors.size(), tensors.size());
        for (const TensorEntry& tensor : tensors) {
            const TensorEntry* found = read.find(tensor.name);
            QVERIFY2(found != nullptr, tensor.name.c_str());
            QCOMPARE(found->dtype, tensor.dtype);
            QCOMPARE(found->shape, tensor.shape);
            QVERIFY(found->data == tensor.data);
        }
        std::vector<float> floats_back(floats.size());
        dp::copy_elements(*read.find("layer.weight"), std::span(floats_back));
        QVERIFY(same_bits(floats_back, floats));
        dp::copy_elements(*read.find("empty"), std::span<float>());  // no memcpy from nullptr
        std::vector<std::int64_t> integers_back(4);
        dp::copy_elements(*read.find("counts"), std::span(integers_back));
        QCOMPARE(integers_back, integers);
    }

    void headerIsPaddedAndDataAligned() {
        // Every name length moves the end of the JSON to another remainder mod 8.
        for (int length = 1; length <= 16; ++length) {
            const std::string name(std::size_t(length), 'w');
            const std::vector<float> values{1.f, 2.f, 3.f};
            const std::vector<std::int64_t> count{42};
            const fs::path file = path("padding.safetensors");
            dp::write_safetensors_atomically(
                file, std::vector{dp::f32_tensor(name, {3}, values), dp::i64_tensor("z", {}, count)});

            const std::string bytes = file_bytes(file);
            std::uint64_t header_size = 0;
            std::memcpy(&header_size, bytes.data(), 8);
            QCOMPARE(header_size % 8, std::uint64_t{0});
            const std::string header = bytes.substr(8, header_size);
            const std::size_t json_end = header.rfind('}') + 1;
            QVERIFY(json_end + 8 > header_size);  // padded by fewer than 8
            QCOMPARE(header.substr(json_end), std::string(header_size - json_end, ' '));
            // The I64 tensor comes first, so both start 8-aligned.
            QVERIFY2(
                header.find(R"("z":{"dtype":"I64","shape":[],"data_offsets":[0,8]})") != std::string::npos,
                header.c_str());
            QCOMPARE(bytes.substr(8 + header_size, 8), little_endian<std::int64_t>({42}));
            QCOMPARE(bytes.substr(16 + header_size), little_endian<float>({1.f, 2.f, 3.f}));
        }
    }

    void goldenFiles_data() {
        QTest::addColumn<std::vector<TensorEntry>>("tensors");
        QTest::addColumn<Metadata>("metadata");
        QTest::addColumn<std::string>("expected");

        const std::vector<float> six{0.f, 1.f, 2.f, 3.f, 4.f, 5.f};
        QTest::newRow("reference: no padding needed")
            << std::vector{dp::f32_tensor("attn.0", {1, 2, 3}, six)} << Metadata()
            << safetensors_bytes(R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})",
                                 little_endian<float>({0.f, 1.f, 2.f, 3.f, 4.f, 5.f}));
        QTest::newRow("reference: padded to alignment")
            << std::vector{dp::f32_tensor("attn0", {1, 1, 2, 3}, six)} << Metadata()
            << safetensors_bytes(
                   R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       )",
                   little_endian<float>({0.f, 1.f, 2.f, 3.f, 4.f, 5.f}));
        QTest::newRow("reference: empty")
            << std::vector<TensorEntry>() << Metadata() << safetensors_bytes("{}      ", "");
        QTest::newRow("reference: empty with metadata")
            << std::vector<TensorEntry>() << Metadata{{"framework", "pt"}}
            << safetensors_bytes(R"({"__metadata__":{"framework":"pt"}}     )", "");

        // A state_dict with BatchNorm state, given in an unsorted order.
        const std::vector<float> mean{0.25f, -0.5f}, bias{1.f, -1.f}, weight{3.f, 4.f};
        const std::vector<std::int64_t> batches{7};
        QTest::newRow("state_dict with I64 and metadata")
            << std::vector{dp::f32_tensor("conv.weight", {2, 1, 1, 1}, weight),
                           dp::i64_tensor("bn.num_batches_tracked", {}, batches),
                           dp::f32_tensor("conv.bias", {2}, bias),
                           dp::f32_tensor("bn.running_mean", {2}, mean)}
            << Metadata{{"format", "pt"}, {"dp_workbench_model", "tiny"}}
            << safetensors_bytes(
                   R"({"__metadata__":{"dp_workbench_model":"tiny","format":"pt"},)"
                   R"("bn.num_batches_tracked":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
                   R"("bn.running_mean":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                   R"("conv.bias":{"dtype":"F32","shape":[2],"data_offsets":[16,24]},)"
                   R"("conv.weight":{"dtype":"F32","shape":[2,1,1,1],"data_offsets":[24,32]}} )",
                   little_endian<std::int64_t>({7}) +
                       little_endian<float>({0.25f, -0.5f, 1.f, -1.f, 3.f, 4.f}));
        QTest::newRow("escaped strings")
            << std::vector{dp::f32_tensor("a\"b\\c/d", {}, std::span(weight).first(1))}
            << Metadata{{"k", "line\nbreak\t\x01"}}
            << safetensors_bytes(R"({"__metadata__":{"k":"line\nbreak\t\u0001"},)"
                                 "\"a\\\"b\\\\c/d\":"  // moc misreads \" in raw strings
                                 R"({"dtype":"F32","shape":[],"data_offsets":[0,4]}})",
                                 little_endian<float>({3.f}));
    }

    void goldenFiles() {
        QFETCH(std::vector<TensorEntry>, tensors);
        QFETCH(Metadata, metadata);
        QFETCH(std::string, expected);
        std::uint64_t header_size = 0;
        std::memcpy(&header_size, expected.data(), 8);
        QCOMPARE(header_size % 8, std::uint64_t{0});  // the golden file itself is padded

        const fs::path file = path("golden.safetensors");
        dp::write_safetensors_atomically(file, tensors, metadata);
        QCOMPARE(file_bytes(file), expected);
        // And the reader takes the golden bytes back.
        const dp::SafetensorsFile read = dp::read_safetensors(file);
        QCOMPARE(read.metadata, metadata);
        QCOMPARE(read.tensors.size(), tensors.size());
    }

    void writerRefusesInvalidTensors() {
        const std::vector<float> two{1.f, 2.f};
        const fs::path file = path("refused.safetensors");
        TensorEntry short_data = dp::f32_tensor("short", {2}, two);
        short_data.data.pop_back();
        const std::vector<std::vector<TensorEntry>> refused{
            {dp::f32_tensor("x", {2}, two), dp::f32_tensor("x", {2}, two)},
            {dp::f32_tensor("__metadata__", {2}, two)},
            {dp::f32_tensor("new\nline", {2}, two)},
            {short_data},
        };
        for (const auto& tensors : refused)
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dp::write_safetensors_atomically(file, tensors));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dp::f32_tensor("x", {3}, two));
        QVERIFY(!fs::exists(file));
    }

    void readsWhatOtherWritersMayWrite() {
        // Pretty-printed JSON, tensors out of offset order, escapes the
        // writer would not use, and keys in another order.
        const std::string header =
            "{\n  \"w\": {\"data_offsets\": [4, 12], \"shape\": [2], \"dtype\": \"F32\"},\n"
            "  \"\\u0062\\ud83d\\ude00\": {\"dtype\": \"F32\", \"shape\": [], \"data_offsets\": [0, 4]}\n}";
        const fs::path file = path("other_writer.safetensors");
        write_bytes(file, safetensors_bytes(header, little_endian<float>({9.f, 1.f, 2.f})));
        const dp::SafetensorsFile read = dp::read_safetensors(file);
        QCOMPARE(read.tensors.size(), 2u);
        QCOMPARE(read.tensors[0].name, std::string("b\xF0\x9F\x98\x80"));
        QCOMPARE(read.tensors[1].name, std::string("w"));
        std::vector<float> w(2);
        dp::copy_elements(read.tensors[1], std::span(w));
        QCOMPARE(w, (std::vector<float>{1.f, 2.f}));
        QVERIFY(read.metadata.empty());
    }

    void corruptFilesGiveOneLineErrors_data() {
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<QString>("error");

        const std::string valid = safetensors_bytes(kValidHeader, kValidData);
        const std::size_t header_end = 8 + kValidHeader.size();
        for (std::size_t cut :
             {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(8), std::size_t(9), header_end / 2,
              header_end - 1, header_end, header_end + 5, valid.size() - 1})
            QTest::addRow("truncated to %zu bytes", cut) << valid.substr(0, cut) << "truncated";

        const auto with_header_size = [&](std::uint64_t size) {
            return little_endian<std::uint64_t>({size}) + valid.substr(8);
        };
        QTest::newRow("header length 2^64-1")
            << with_header_size(~std::uint64_t{0}) << "over the 100 MB limit";
        QTest::newRow("header length 2^63")
            << with_header_size(std::uint64_t{1} << 63) << "over the 100 MB limit";
        QTest::newRow("header length past the end") << with_header_size(valid.size()) << "truncated";
        QTest::newRow("header length short")
            << with_header_size(kValidHeader.size() - 1) << "bad header JSON";
        QTest::newRow("extra bytes after the data") << valid + "x"
                                                    << "unexpected data after the last tensor (1 bytes";

        const auto with_header = [](const std::string& header) {
            return safetensors_bytes(header, kValidData);
        };
        const std::string a_tensor = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]})";
        const std::string b_tensor = R"("b":{"dtype":"I64","shape":[],"data_offsets":[0,8]})";
        const struct {
            const char* tag;
            std::string header;
            const char* error;
        } bad_headers[] = {
            {"empty header", "", "expected '{'"},
            {"array", "[]", "expected '{'"},
            {"not JSON", "garbage!", "expected '{'"},
            {"missing colon", "{\"b\" {}}", "expected ':'"},
            {"trailing comma", "{" + b_tensor + "," + a_tensor + ",}", "expected a string"},
            {"unterminated string", "{\"b", "unterminated string"},
            {"unterminated object", "{" + b_tensor, "expected ',' or '}'"},
            {"bad escape", "{\"\\x\":1}", "invalid escape"},
            {"lone surrogate", "{\"\\ud800\":1}", "lone high surrogate"},
            {"short \\u", "{\"\\u12\":1}", "4 hex digits"},
            {"invalid UTF-8", "{\"\xC3\x28\":1}", "invalid UTF-8"},
            {"control character", "{\"a\tb\":1}", "control character"},
            {"escaped control character", "{\"a\\nb\":{}}", "control character"},
            {"float in shape", R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})",
             "expected an integer"},
            {"negative offset", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})", "non-negative"},
            {"leading zero", R"({"a":{"dtype":"F32","shape":[02],"data_offsets":[0,8]}})", "leading zero"},
            {"huge integer", R"({"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,8]}})",
             "integer too large"},
            {"string shape", R"({"a":{"dtype":"F32","shape":"2","data_offsets":[0,8]}})", "expected '['"},
            {"duplicate tensor", "{" + b_tensor + "," + b_tensor + "}", "duplicate key \"b\""},
            {"duplicate field", R"({"b":{"dtype":"I64","dtype":"I64","shape":[],"data_offsets":[0,8]}})",
             "duplicate key \"dtype\""},
            {"unknown field", R"({"b":{"dtype":"I64","shape":[],"data_offsets":[0,8],"x":1}})",
             "unexpected key"},
            {"unknown field with a line break", R"({"b":{"x\ny":1}})", "unexpected key \"x?y\""},
            {"missing offsets", R"({"b":{"dtype":"I64","shape":[]}})", "lacks data_offsets"},
            {"three offsets", R"({"b":{"dtype":"I64","shape":[],"data_offsets":[0,8,16]}})", "not 2"},
            {"metadata not strings", R"({"__metadata__":{"k":1}})", "expected a string"},
            {"data after the object", "{" + b_tensor + "," + a_tensor + "} x", "unexpected data after"},
            {"F16", "{" + b_tensor + R"(,"a":{"dtype":"F16","shape":[4],"data_offsets":[8,16]}})",
             "dtype F16; only F32 and I64"},
            {"BF16", "{" + b_tensor + R"(,"a":{"dtype":"BF16","shape":[4],"data_offsets":[8,16]}})",
             "dtype BF16; only F32 and I64"},
            {"offsets not matching the shape",
             "{" + b_tensor + R"(,"a":{"dtype":"F32","shape":[3],"data_offsets":[8,16]}})", "needs 12 bytes"},
            {"offsets not matching the dtype",
             "{" + b_tensor + R"(,"a":{"dtype":"I64","shape":[2],"data_offsets":[8,16]}})", "needs 16 bytes"},
            {"offsets reversed",
             "{" + b_tensor + R"(,"a":{"dtype":"F32","shape":[2],"data_offsets":[16,8]}})",
             "end before they begin"},
            {"overlapping offsets",
             R"({"b":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
             R"("a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
             "overlaps tensor b"},
            {"gap between tensors",
             R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
             R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
             "leaving a gap"},
            {"offsets beyond the data",
             "{" + b_tensor + R"(,"a":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
             "truncated: the tensors need 24 bytes"},
            {"shape overflowing",
             "{" + b_tensor +
                 R"(,"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[8,16]}})",
             "shape too large"},
            {"dimension beyond int64",
             "{" + b_tensor + R"(,"a":{"dtype":"F32","shape":[9223372036854775808,0],"data_offsets":[8,8]}})",
             "dimension too large"},
        };
        for (const auto& bad : bad_headers) QTest::newRow(bad.tag) << with_header(bad.header) << bad.error;
    }

    void corruptFilesGiveOneLineErrors() {
        QFETCH(std::string, bytes);
        QFETCH(QString, error);
        const fs::path file = path("corrupt.safetensors");
        write_bytes(file, bytes);
        expect_error([&] { dp::read_safetensors(file); }, file, error);
    }

    void missingOrUnreadableFiles() {
        const fs::path missing = path("missing.safetensors");
        expect_error([&] { dp::read_safetensors(missing); }, missing, "file not found");
        const fs::path directory = path("a_directory.safetensors");
        fs::create_directory(directory);
        expect_error([&] { dp::read_safetensors(directory); }, directory, "not a regular file");
    }

    // Random byte flips of a valid file: each read either succeeds or throws
    // dp::Error. A quick run as a regression check; longer ones belong under
    // ASan and UBSan.
    void byteFlipsNeverCrash() {
        const std::string valid = safetensors_bytes(kValidHeader, kValidData);
        const fs::path file = path("fuzz.safetensors");
        std::mt19937 random(20240607);
        int rejected = 0;
        constexpr int kIterations = 2000;
        for (int i = 0; i < kIterations; ++i) {
            std::string bytes = valid;
            const int flips = 1 + int(random() % 4);
            for (int flip = 0; flip < flips; ++flip)
                bytes[random() % bytes.size()] ^= char(1 << random() % 8);
            write_bytes(file, bytes);
            if (!error_of([&] { dp::read_safetensors(file); }).empty()) ++rejected;
        }
        QVERIFY(rejected > kIterations / 2);  // flips in the header are mostly caught
    }

    void atomicWriteReplacesTheFile() {
        const fs::path file = path("replace.safetensors");
        write_bytes(file, "old contents");
        const std::vector<float> values{1.f, 2.f};
        dp::write_safetensors_atomically(file, std::vector{dp::f32_tensor("x", {2}, values)});
        QCOMPARE(dp::read_safetensors(file).tensors.size(), 1u);
        QVERIFY(!has_temporaries(file.parent_path()));
    }

    void failedWriteKeepsTheOldFile() {
        const fs::path file = path("keep.safetensors");
        const std::string old_bytes = "the previous checkpoint";
        write_bytes(file, old_bytes);
        const std::vector<float> large = varied_values(1 << 16, 2);
        {
            const FileSizeLimit limit(4096);  // the write of 256 KiB fails part way
            expect_error(
                [&] {
                    dp::write_safetensors_atomically(file,
                                                     std::vector{dp::f32_tensor("x", {1 << 16}, large)});
                },
                file, "cannot write: File too large");
        }
        QCOMPARE(file_bytes(file), old_bytes);
        QVERIFY(!has_temporaries(file.parent_path()));
    }

    void failedRenameLeavesNoTemporary() {
        const fs::path directory = path("in_the_way.safetensors");  // rename cannot replace a directory
        fs::create_directory(directory);
        expect_error([&] { dp::write_safetensors_atomically(directory, std::vector<TensorEntry>()); },
                     directory, "is a folder, not a regular file; it is not replaced");
        QVERIFY(fs::is_directory(directory));
        QVERIFY(!has_temporaries(directory.parent_path()));

        const fs::path nowhere = path("no_such_directory") / "x.safetensors";
        expect_error([&] { dp::write_safetensors_atomically(nowhere, std::vector<TensorEntry>()); }, nowhere,
                     "cannot create a temporary file beside it: No such file or directory");
    }

    // As root, replacing /dev/null would turn it into a regular file.
    void deviceNodeIsRefusedNotReplaced() {
        const fs::path device = "/dev/null";
        expect_error([&] { dp::write_safetensors_atomically(device, std::vector<TensorEntry>()); },
                     device, "is a character device, not a regular file; it is not replaced");
        QVERIFY(fs::is_character_file(device));
    }

    // A symlink is written through: its target gets the new file, the link stays.
    void symlinkIsWrittenThrough() {
        const fs::path target = path("target.safetensors"), link = path("link.safetensors");
        write_bytes(target, "old");
        fs::create_symlink(target.filename(), link);  // relative, as `ln -s` makes them
        const std::vector<float> values{3.f};
        dp::write_safetensors_atomically(link, std::vector{dp::f32_tensor("x", {1}, values)});
        QVERIFY(fs::is_symlink(link));
        QCOMPARE(dp::read_safetensors(target).tensors.size(), 1u);
        QVERIFY(!has_temporaries(target.parent_path()));
    }

    // Two writers of one path (two runs with one --save) each write their own
    // temporary: the file ends up as one of them, whole.
    void concurrentWritersDoNotShareATemporary() {
        const fs::path file = path("shared.safetensors");
        const std::vector<float> a(1 << 16, 1.f), b(1 << 16, 2.f);
        std::thread first([&] {
            for (int i = 0; i < 20; ++i)
                dp::write_safetensors_atomically(file, std::vector{dp::f32_tensor("x", {1 << 16}, a)});
        });
        for (int i = 0; i < 20; ++i)
            dp::write_safetensors_atomically(file, std::vector{dp::f32_tensor("x", {1 << 16}, b)});
        first.join();
        const auto read = dp::read_safetensors(file);
        QCOMPARE(read.tensors.size(), 1u);
        QVERIFY(!has_temporaries(file.parent_path()));
    }

    void readOnlyDirectoryKeepsTheOldFile() {
        if (geteuid() == 0)
            QSKIP("root writes to read-only directories; failedWriteKeepsTheOldFile covers this");
        const fs::path directory = path("read_only");
        fs::create_directory(directory);
        const fs::path file = directory / "x.safetensors";
        write_bytes(file, "old");
        fs::permissions(directory, fs::perms::owner_read | fs::perms::owner_exec);
        expect_error([&] { dp::write_safetensors_atomically(file, std::vector<TensorEntry>()); }, file,
                     "Permission denied");
        fs::permissions(directory, fs::perms::owner_all);
        QCOMPARE(file_bytes(file), std::string("old"));
        QVERIFY(!has_temporaries(file.parent_path()));
    }

    void checkpointRoundTrip() {
        const std::vector<ParameterInfo> infos = lenet_infos(10);
        const std::vector<float> values = finite_varied_values(total_size(infos), 3);
        const std::vector<NamedBuffer> buffers{
            {"bn1.running_mean", {20}, std::vector<float>(20, 0.5f)},
            {"bn1.num_batches_tracked", {}, std::vector<std::int64_t>{1'234'567'890'123}},
        };
        const fs::path file = path("lenet.safetensors");
        dp::save_checkpoint(file, "lenet", infos, values, buffers);

        const dp::SafetensorsFile read = dp::read_safetensors(file);
        QCOMPARE(read.metadata.at("dp_workbench_model"), std::string("lenet"));
        QCOMPARE(read.find("conv1.weight")->shape, (std::vector<std::int64_t>{20, 1, 3, 3}));
        QCOMPARE(read.find("fc2.bias")->shape, (std::vector<std::int64_t>{10}));

        std::vector<float> loaded(values.size());
        std::vector<NamedBuffer> loaded_buffers{{"bn1.running_mean", {20}, std::vector<float>()},
                                                {"bn1.num_batches_tracked", {}, std::vector<std::int64_t>()}};
        dp::load_checkpoint(file, "lenet", infos, loaded, loaded_buffers);
        QVERIFY(same_bits(loaded, values));
        QCOMPARE(std::get<std::vector<float>>(loaded_buffers[0].values), std::vector<float>(20, 0.5f));
        QCOMPARE(std::get<std::vector<std::int64_t>>(loaded_buffers[1].values),
                 std::vector<std::int64_t>{1'234'567'890'123});
    }

    // A diverged run's weights are not saved, and a file holding them is not
    // loaded: the caller's values stay as they were.
    void nonFiniteWeightsAreNeitherSavedNorLoaded() {
        const std::vector<ParameterInfo> infos = lenet_infos(10);
        std::vector<float> values = finite_varied_values(total_size(infos), 5);
        values[infos[2].offset + 1] = std::numeric_limits<float>::infinity();
        const fs::path file = path("diverged.safetensors");
        expect_error([&] { dp::save_checkpoint(file, "lenet", infos, values); }, file,
                     "not saved: the weights hold 1 NaN or infinite value (the first in " +
                         QString::fromStdString(infos[2].name) + ")");
        QVERIFY(!fs::exists(file));

        // The same values written as a bare safetensors file, as another tool might.
        std::vector<TensorEntry> tensors;
        for (const ParameterInfo& info : infos)
            tensors.push_back(dp::f32_tensor(info.name, {info.shape.begin(), info.shape.end()},
                                             std::span(values).subspan(info.offset, info.size)));
        dp::write_safetensors_atomically(file, tensors);
        std::vector<float> kept(values.size(), 7.f);
        expect_error([&] { dp::load_checkpoint(file, "lenet", infos, kept); }, file,
                     "its weights hold 1 NaN or infinite value");
        QCOMPARE(kept, std::vector<float>(values.size(), 7.f));
    }

    void checkpointWithoutModelNameLoads() {
        // As safetensors.torch.save_file(model.state_dict(), file) writes it:
        // no metadata, larger dtypes first, then by name.
        const std::vector<ParameterInfo> infos{{"fc.weight", {2, 2}, dp::ParameterInit::zeros, 0, 4},
                                               {"fc.bias", {2}, dp::ParameterInit::zeros, 4, 2}};
        const fs::path file = path("pytorch.safetensors");
        write_bytes(file, safetensors_bytes(
                              R"({"bn.num_batches_tracked":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
                              R"("fc.bias":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                              R"("fc.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[16,32]}})",
                              little_endian<std::int64_t>({5}) +
                                  little_endian<float>({0.5f, -0.5f, 1.f, 2.f, 3.f, 4.f})));
        std::vector<float> values(6);
        std::vector<NamedBuffer> buffers{{"bn.num_batches_tracked", {}, std::vector<std::int64_t>()}};
        dp::load_checkpoint(file, "any model", infos, values, buffers);
        QCOMPARE(values, (std::vector<float>{1.f, 2.f, 3.f, 4.f, 0.5f, -0.5f}));
        QCOMPARE(std::get<std::vector<std::int64_t>>(buffers[0].values), std::vector<std::int64_t>{5});
    }

    void strictLoadErrors_data() {
        QTest::addColumn<QString>("saved_model");
        QTest::addColumn<int>("saved_classes");
        QTest::addColumn<QString>("saved_extra");  // an extra F32 buffer of shape [2], if named
        QTest::addColumn<bool>("drop_last_parameter");
        QTest::addColumn<QString>("error");

        QTest::newRow("another model")
            << "resnet18" << 10 << "" << false << "checkpoint of model 'resnet18', not 'lenet'";
        QTest::newRow("missing tensor") << "lenet" << 10 << "" << true << "missing tensor fc2.bias";
        QTest::newRow("unexpected tensor")
            << "lenet" << 10 << "fc3.bias" << false
            << "unexpected tensor fc3.bias: model 'lenet' has none by that name";
        QTest::newRow("other shape")
            << "lenet" << 5 << "" << false
            << "fc2.weight has shape [5,128] in the file, the model expects [10,128]";
    }

    void strictLoadErrors() {
        QFETCH(QString, saved_model);
        QFETCH(int, saved_classes);
        QFETCH(QString, saved_extra);
        QFETCH(bool, drop_last_parameter);
        QFETCH(QString, error);

        std::vector<ParameterInfo> saved_infos = lenet_infos(saved_classes);
        const std::vector<float> saved_values = finite_varied_values(total_size(saved_infos), 4);
        if (drop_last_parameter) saved_infos.pop_back();
        std::vector<NamedBuffer> extra;
        if (!saved_extra.isEmpty())
            extra.push_back({saved_extra.toStdString(), {2}, std::vector<float>{1.f, 2.f}});
        const fs::path file = path("strict.safetensors");
        dp::save_checkpoint(file, saved_model.toStdString(), saved_infos, saved_values, extra);

        const std::vector<ParameterInfo> infos = lenet_infos(10);
        const std::vector<float> untouched(total_size(infos), 7.f);
        std::vector<float> values = untouched;
        expect_error([&] { dp::load_checkpoint(file, "lenet", infos, values); }, file, error);
        QCOMPARE(values, untouched);  // a failed load changes nothing
    }

    // BatchNorm's running statistics were never checked: NaN in running_var
    // loaded, evaluated to chance in silence, trained and was saved again.
    // Now a checkpoint holding NaN or infinite statistics, or a negative
    // variance, is refused on load naming the tensor (the store keeps its
    // values), and a store holding them is not saved.
    void brokenBatchNormStatisticsAreNeitherLoadedNorSaved_data() {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<float>("value");
        QTest::addColumn<QString>("error");
        QTest::newRow("NaN variance") << "bn.running_var" << std::numeric_limits<float>::quiet_NaN()
                                      << "bn.running_var holds 1 NaN or infinite value";
        QTest::newRow("negative variance") << "bn.running_var" << -1.f
                                           << "bn.running_var holds 1 negative value";
        QTest::newRow("infinite mean") << "bn.running_mean" << std::numeric_limits<float>::infinity()
                                       << "bn.running_mean holds 1 NaN or infinite value";
    }
    void brokenBatchNormStatisticsAreNeitherLoadedNorSaved() {
        QFETCH(QString, tensor);
        QFETCH(float, value);
        QFETCH(QString, error);
        dp::ReferenceBackend backend;
        const auto make_store = [&backend] {
            auto store = std::make_unique<dp::ParameterStore>();
            store->declare("fc.weight", {2, 2}, dp::ParameterInit::normal_0_01);
            store->declare_buffer("bn.running_mean", {2}, dp::ParameterInit::zeros);
            store->declare_buffer("bn.running_var", {2}, dp::ParameterInit::ones);
            store->declare_buffer("bn.num_batches_tracked", {}, dp::ParameterInit::zeros);
            store->allocate(backend, 1);
            return store;
        };
        const auto store = make_store();
        const fs::path good = path("bn-good.safetensors");
        dp::save_model(good, "m", *store, backend);  // healthy statistics save

        // The same checkpoint with one statistic broken, as a diverged run or a hand leaves it.
        dp::SafetensorsFile file = dp::read_safetensors(good);
        std::vector<TensorEntry> tensors;
        for (const TensorEntry& entry : file.tensors) {
            if (entry.name != tensor.toStdString()) {
                tensors.push_back(entry);
                continue;
            }
            std::vector<float> values(entry.element_count());
            dp::copy_elements(entry, values);
            values[1] = value;
            tensors.push_back(dp::f32_tensor(entry.name, entry.shape, values));
        }
        const fs::path broken = path("bn-broken.safetensors");
        dp::write_safetensors_atomically(broken, tensors, file.metadata);
        const auto loaded = make_store();
        std::vector<float> before(loaded->buffers_size());
        backend.download(loaded->buffers(), before.data(), before.size());
        expect_error([&] { dp::load_model(broken, "m", *loaded, backend); }, broken, error);
        expect_error([&] { dp::load_model(broken, "m", *loaded, backend); }, broken,
                     "load an earlier checkpoint or train from the seed");
        std::vector<float> after(before.size());
        backend.download(loaded->buffers(), after.data(), after.size());
        QVERIFY(same_bits(after, before));  // nothing was uploaded

        // The same state in a replica is not saved: the file keeps its last, healthy state.
        const std::size_t index = tensor.endsWith("mean") ? 0 : 1;
        const dp::ParameterInfo& info = store->buffer_infos()[index];
        backend.upload(&value, store->buffers() + info.offset + 1, 1);
        expect_error([&] { dp::save_model(good, "m", *store, backend); }, good,
                     "not saved: the BatchNorm statistics went wrong (" + error);
        dp::load_model(good, "m", *make_store(), backend);
    }

    void bufferDtypeMismatch() {
        const std::vector<NamedBuffer> saved{{"bn.num_batches_tracked", {}, std::vector<float>{3.f}}};
        const fs::path file = path("dtype.safetensors");
        dp::save_checkpoint(file, "m", {}, {}, saved);
        std::vector<NamedBuffer> expected{{"bn.num_batches_tracked", {}, std::vector<std::int64_t>()}};
        expect_error([&] { dp::load_checkpoint(file, "m", {}, {}, expected); }, file,
                     "bn.num_batches_tracked is F32 in the file, the model expects I64");
    }
};

QTEST_APPLESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
