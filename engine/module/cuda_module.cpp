#include "module/cuda_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <tuple>

#include "backend/conv_accuracy.h"
#include "backend/kernel_choices.h"
#include "core/error.h"
#include "parallel/collective_schedule.h"
#include "parallel/thread_rendezvous.h"

namespace dp {
namespace {

#ifdef DP_HAVE_CUDA
// The module takes the engine code it calls (kernel_choices(), the
// collective schedules, the timeouts' messages) from the program that loads
// it, which exports its symbols (-rdynamic, engine/CMakeLists.txt), rather
// than from a copy of its own: one kernel cache per process, as
// kernel_choices.h promises, and no second copy of anything else with
// state. These references make the linker keep that code, one function per
// object file, in every program that can load the module, including one
// that never trains on a CPU.
[[gnu::used]] const auto kEngineCodeTheModuleCalls =
    std::make_tuple(&kernel_choices, &CollectiveSchedule::steps, &CollectiveTimeout::limit,
                    &out_of_step_message, &conv_error_bound);  // conv_accuracy.h: ConvReference
#endif

constexpr const char* kModuleName = "libdp-cuda.so";

struct LoadedModule {
    const CudaModule* module = nullptr;
    std::string problem;  // why module is null
};

LoadedModule load_cuda_module() {
#ifndef DP_HAVE_CUDA
    return {nullptr, "this build has no CUDA backend (configure with -DDP_CUDA=ON)"};
#else
    const std::string path = cuda_module_path();
    // dp-gpu-selftest and test_gpu link the module, so it is loaded already.
    void* handle = dlopen(kModuleName, RTLD_NOW | RTLD_NOLOAD);
    // Never closed: backends and communicators live until the process ends.
    if (!handle) handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::string problem = cuda_load_problem(dlerror());
        // A bundle that keeps every library in one folder on LD_LIBRARY_PATH
        // (the GPU machine's check bundle, ../shared/gpu/make-bundle.sh) has no
        // lib/dp-workbench: the loader's own search finds the module there.
        if (!std::getenv("DP_CUDA_MODULE") && !std::filesystem::exists(path)) {
            handle = dlopen(kModuleName, RTLD_NOW | RTLD_LOCAL);
            // Found there but short of a CUDA library: that library is the problem.
            if (const std::string search = handle ? "" : dlerror(); !handle && !search.starts_with(kModuleName))
                problem = cuda_load_problem(search);
        }
        if (!handle) return {nullptr, problem};
    }
    const auto entry = reinterpret_cast<CudaModuleEntry>(dlsym(handle, DP_CUDA_MODULE_ENTRY));
    if (!entry) return {nullptr, path + " is not a DP Workbench CUDA module (no " DP_CUDA_MODULE_ENTRY ")"};
    const CudaModule* module = entry();
    if (module->version != kCudaModuleVersion)
        return {nullptr, path + " is from another build (module version " +
                             std::to_string(module->version) + ", this program's " +
                             std::to_string(kCudaModuleVersion) + "): reinstall dp-workbench"};
    return {module, {}};
#endif
}

const LoadedModule& loaded_module() {
    static const LoadedModule loaded = load_cuda_module();
    return loaded;
}

// "9" for "libcudnn.so.9", "" without a version.
std::string soname_major(const std::string& library) {
    const auto at = library.find(".so.");
    if (at == std::string::npos) return "";
    const std::string version = library.substr(at + 4);
    return version.substr(0, version.find('.'));
}

// What to do about a library the loader could not find, by its name.
std::string install_hint(const std::string& library) {
    const std::string major = soname_major(library);
    if (library.starts_with("libdp-cuda"))
        return "reinstall dp-workbench, or set DP_CUDA_MODULE to the module's path";
    if (library.starts_with("libcudnn")) return "install cuDNN " + major + " or set LD_LIBRARY_PATH";
    if (library.starts_with("libnccl")) return "install NCCL " + major + " or set LD_LIBRARY_PATH";
    if (library.starts_with("libcuda.so")) return "install the NVIDIA driver";
    if (library.starts_with("libcu") || library.starts_with("libnv"))
        return "install the CUDA " + major + " libraries or set LD_LIBRARY_PATH";
    return "install it or set LD_LIBRARY_PATH";
}

}  // namespace

std::string cuda_module_path() {
    if (const char* path = std::getenv("DP_CUDA_MODULE"); path && *path) return path;
    std::error_code error;
    const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
    const std::filesystem::path lib = program.parent_path().parent_path() / "lib";
    return (lib / "dp-workbench" / kModuleName).string();
}

std::string cuda_load_problem(const std::string& loader_error) {
    const auto at = loader_error.find(": cannot open shared object file");
    if (at == std::string::npos) return loader_error;
    const std::string library = loader_error.substr(0, at);
    const std::string name = std::filesystem::path(library).filename().string();
    return library + " not found (" + install_hint(name) + ")";
}

const CudaModule* cuda_module() { return loaded_module().module; }

std::string cuda_module_problem() {
    const LoadedModule& loaded = loaded_module();
    if (loaded.module) return {};
    std::string line = "CUDA: not available: ";
    line += loaded.problem;
    return line;
}

const CudaModule& require_cuda_module() {
    if (const CudaModule* module = cuda_module()) return *module;
    throw Error(cuda_module_problem());
}

}  // namespace dp
