#include "backend/backend_factory.h"

#include "backend/onednn/onednn_backend.h"
#include "core/error.h"
#include "core/setting_ref.h"
#include "module/cuda_module.h"

namespace dp {

std::unique_ptr<Backend> make_backend(const DeviceInfo& device, Precision precision) {
    if (const std::string refusal = precision_refusal(device, precision); !refusal.empty())
        throw Error(refusal);
    if (device.kind == DeviceKind::cuda) {
        CudaBackendOptions options = cuda_backend_options_from_environment();
        // --precision tf32 is DP_CUDA_TF32=1 for one run.
        options.allow_tf32 = options.allow_tf32 || precision == Precision::tf32;
        options.bf16 = precision == Precision::bf16;
        // --precision fp32-fast is DP_CUDNN_FP32_TRANSFORMS=1 for one run.
        options.fp32_transforms = options.fp32_transforms || precision == Precision::fp32_fast;
        return require_cuda_module().make_backend(device.cuda_ordinal, options);
    }
    return std::make_unique<OneDnnBackend>(precision);
}

std::string backend_versions() {
    std::string text = OneDnnBackend::version();
    text += "; ";
    if (const CudaModule* cuda = cuda_module())
        text += cuda->build_versions();
    else
        text += cuda_module_problem();
    return text;
}

std::string precision_refusal(const DeviceInfo& device, Precision precision) {
    const std::string name = setting("precision") + " " + precision_name(precision);
    // The CUDA build targets sm_80 and later, whose tensor cores do both.
    if (device.kind == DeviceKind::cuda) return {};
    switch (precision) {
    case Precision::fp32:
    case Precision::fp32_fast: return {};
    case Precision::tf32:
        return name + ": TF32 is a GPU tensor-core format and " + device.id +
               " is a CPU device: use " + setting("precision") + " bf16 or fp32 on CPUs";
    case Precision::bf16:
        if (OneDnnBackend::computes_bf16()) return {};
        return name + ": this CPU lacks AVX512_BF16 and AMX: use " + setting("precision") +
               " fp32";
    }
    return {};
}

}  // namespace dp
