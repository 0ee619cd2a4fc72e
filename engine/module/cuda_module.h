#pragma once

// The seam between the engine and its CUDA code. The CUDA platform layer,
// the CUDA backend and the NCCL and replica-copy communicators are one
// shared module, libdp-cuda.so (engine/platform/cuda/CMakeLists.txt), which
// the engine loads with dlopen the first time a CUDA device is listed or
// asked for. So dp-train and the workbench link no CUDA library and start
// on any machine: where the module or one of CUDA's libraries is missing,
// they run on CPU devices and say why CUDA is not there, in one line.
//
// A floor of its own, module/: it names the interfaces of backend/ and
// parallel/ (the factories' return types), so it sits above them, while
// platform/cuda/, the CUDA ground floor beneath both, includes only itself
// and core/ (scripts/check-floors).
//
// Plain C++ on both sides: the module is built by the same compiler with the
// same flags as the programs that load it, and from the same commit (the
// version below is checked on loading).

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda_backend_options.h"
#include "collective/communicator.h"
#include "parallel/collective_timeout.h"
#include "parallel/nccl_communicator.h"
#include "platform/cuda/cuda_devices.h"

namespace dp {

// Raised whenever a field below is added, removed or changes its type.
constexpr int kCudaModuleVersion = 1;

// What the module offers the engine: a table of factories.
struct CudaModule {
    int version = kCudaModuleVersion;
    // platform/cuda/cuda_devices.h
    std::vector<CudaDeviceProperties> (*devices)();
    void (*use_device)(int ordinal);
    // backend/cuda/cuda_backend.h
    std::unique_ptr<Backend> (*make_backend)(int ordinal, const CudaBackendOptions& options);
    std::string (*build_versions)();
    // parallel/nccl_communicator.h: all ranks in this process, or one of several processes.
    std::unique_ptr<Communicator> (*make_nccl_communicator)(const std::vector<int>& ordinals,
                                                            const std::string& strategy,
                                                            CollectiveTimeout timeout);
    NcclUniqueId (*nccl_unique_id)();
    std::unique_ptr<Communicator> (*make_nccl_rank_communicator)(const NcclUniqueId& id, int rank,
                                                                 int ranks, int ordinal,
                                                                 const std::string& strategy,
                                                                 CollectiveTimeout timeout);
    // parallel/replica_copy_communicator.h
    std::unique_ptr<Communicator> (*make_replica_copy_communicator)(int ordinal, int ranks,
                                                                    const std::string& strategy,
                                                                    CollectiveTimeout timeout);
};

// The module's one entry point (engine/module/cuda_module_entry.cpp).
#define DP_CUDA_MODULE_ENTRY "dp_cuda_module"
using CudaModuleEntry = const CudaModule* (*)();

// The module's file: $DP_CUDA_MODULE when set (the tests' build tree, or a
// module kept elsewhere), else lib/dp-workbench/libdp-cuda.so beside the
// program's folder (/usr/bin -> /usr/lib/dp-workbench; the bundle's libexec/
// -> lib/dp-workbench; the build tree's app/ -> lib/dp-workbench).
std::string cuda_module_path();

// The module, loaded on the first call (thread-safe); nullptr when this
// build has no CUDA code or the module cannot be loaded.
const CudaModule* cuda_module();

// Empty when cuda_module() is there, else the one line that says why not:
// "CUDA: not available: libcudnn.so.9 not found (install cuDNN 9 or set
// LD_LIBRARY_PATH)".
std::string cuda_module_problem();

// cuda_module(), or dp::Error with cuda_module_problem().
const CudaModule& require_cuda_module();

// The one line for a loader error (dlerror's text): "<library> not found
// (<what to install>)" for a library the loader could not find, the text
// itself otherwise. Public for the tests.
std::string cuda_load_problem(const std::string& loader_error);

}  // namespace dp
