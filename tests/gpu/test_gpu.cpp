// One GPU check per CTest test: `test_gpu CHECK` runs the check of that name
// (gpu_checks.h). Exits 77, which CTest reports as Skipped, without a GPU.
#include <cstdio>
#include <cstring>
#include <exception>

#include "selftest/gpu_checks.h"

int main(int argc, char** argv) {
    namespace checks = dp::gpu_checks;
    if (argc != 2) {
        std::fprintf(stderr, "usage: test_gpu CHECK\n");
        return 2;
    }
    if (checks::gpu_ids().empty()) {
        std::printf("skipped: no CUDA GPU found\n");
        return checks::kSkipped;
    }
    for (const auto& check : checks::all_checks()) {
        if (std::strcmp(check.name, argv[1]) != 0) continue;
        try {
            std::printf("%s: %s\n", check.name, check.run().c_str());
            return 0;
        } catch (const std::exception& error) {
            std::printf("%s FAILED: %s\n", check.name, error.what());
            return 1;
        }
    }
    std::fprintf(stderr, "test_gpu: no check named %s\n", argv[1]);
    return 2;
}
