// OneDnnBackend's construction and the state its op families share; the ops
// are in onednn_<family>.cpp (see onednn_impl.h).

#include "backend/onednn/onednn_backend.h"

#include <cstring>
#include <new>

#include "backend/onednn/onednn_impl.h"
#include "core/error.h"

namespace dp {

OneDnnBackend::OneDnnBackend(Precision precision) {
    if (precision == Precision::tf32 || (precision == Precision::bf16 && !computes_bf16()))
        throw Error(std::string("oneDNN cannot compute in ") + precision_name(precision) +
                    " on this CPU");
    impl_ = std::make_unique<Impl>(precision);
}
OneDnnBackend::~OneDnnBackend() = default;

bool OneDnnBackend::computes_bf16() {
    // cpu_isa values are feature masks, not an order (avx2_vnni is above
    // avx512_core_bf16 numerically yet has no bf16): test the bits.
    const auto isa = unsigned(dnnl::get_effective_cpu_isa());
    const auto bf16 = unsigned(dnnl::cpu_isa::avx512_core_bf16);
    return (isa & bf16) == bf16;
}

void OneDnnBackend::Impl::reserve_scratch(std::size_t bytes) {
    if (bytes <= scratch_bytes) return;
    scratch.reset(static_cast<std::byte*>(std::aligned_alloc(64, bytes)));
    if (!scratch) throw std::bad_alloc();
    // Touched now, so that no measured convolution pays for its page faults.
    std::memset(scratch.get(), 0, bytes);
    scratch_bytes = bytes;
}

void OneDnnBackend::synchronize() { impl_->stream.wait(); }

}  // namespace dp
