#pragma once

#include "backend/backend.h"

namespace dp {

// The memory side of the CPU backends: device memory is host memory, so
// transfers are copies and there is nothing to wait for.
class HostMemoryBackend : public Backend {
public:
    // 64-byte aligned (cache lines, AVX-512 vectors) and zeroed, so a buffer
    // never holds stale values.
    DeviceBuffer allocate(std::size_t floats) override;
    void upload(const float* host, float* device, std::size_t floats) override;
    void download(const float* device, float* host, std::size_t floats) override;
    void upload_labels(const std::int32_t* host, float* device, std::size_t count) override;
    void fill(float* device, std::size_t floats, float value) override;
    void copy(std::size_t n, const float* src, float* dst) override;
    void synchronize() override {}

    bool host_reads_are_free() const override { return true; }
    std::unique_ptr<OpClock> make_op_clock(std::size_t capacity) override;
    // The host values themselves: device memory is host memory.
    DeviceBuffer resident_copy(const float* host, std::size_t floats) override;
    void gather_rows(const float* rows, std::size_t row_floats, const float* indices,
                     std::size_t count, float* out) override;
    // The backend's own loss (softmax_cross_entropy or nll_loss), its sums
    // added to the totals in host memory.
    void add_loss_to_totals(LossKind kind, int batch, int classes, const float* outputs,
                            const float* labels, float* doutputs, float grad_scale,
                            float* totals) override;
    LossResult take_loss_totals(float* totals) override;
};

}  // namespace dp
