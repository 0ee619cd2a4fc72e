// main() of a fuzz harness in the normal build: runs every file of the
// folders (or the files) named on the command line through
// LLVMFuzzerTestOneInput once, in name order, as libFuzzer does when given
// files. CTest runs each harness over its seed corpus and its regressions, so
// an input a fuzzer once broke on is checked on every test run. A harness
// reports a failure by crashing, as it does under libFuzzer.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_in(const std::filesystem::path& argument) {
    if (!std::filesystem::is_directory(argument)) return {argument};
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(argument))
        if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t total = 0;
    for (int i = 1; i < argc; ++i) {
        if (!std::filesystem::exists(argv[i])) {
            std::fprintf(stderr, "%s: not found\n", argv[i]);
            return 1;
        }
        for (const std::filesystem::path& input : inputs_in(argv[i])) {
            std::ifstream in(input, std::ios::binary);
            const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
            if (!in.good() && !in.eof()) {
                std::fprintf(stderr, "%s: cannot read\n", input.c_str());
                return 1;
            }
            std::printf("%s (%zu bytes)\n", input.c_str(), bytes.size());
            std::fflush(stdout);  // names the input if the harness crashes on it
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
            ++total;
        }
    }
    if (total == 0) {
        std::fprintf(stderr, "no inputs: give the seed corpus folder\n");
        return 1;
    }
    std::printf("%zu inputs ran through the harness\n", total);
    return 0;
}
