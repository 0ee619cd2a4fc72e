// OneDnnBackend's construction and the state its op families share; the ops
// are in onednn_<family>.cpp (see onednn_impl.h).

#include "backend/onednn/onednn_backend.h"

#include <cstring>
#include <new>

#include "backend/onednn/onednn_impl.h"

namespace dp {

OneDnnBackend::OneDnnBackend() : impl_(std::make_unique<Impl>()) {}
OneDnnBackend::~OneDnnBackend() = default;

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
