#include "backend/host_memory_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "backend/loss_totals.h"

namespace dp {

static_assert(sizeof(LossTotals) <= Backend::kLossTotalsFloats * sizeof(float));

DeviceBuffer HostMemoryBackend::allocate(std::size_t floats) {
    const std::size_t bytes = std::max<std::size_t>(64, (floats * sizeof(float) + 63) / 64 * 64);
    auto* data = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!data) throw std::bad_alloc();
    std::memset(data, 0, bytes);
    return DeviceBuffer(data, [](float* p) { std::free(p); });
}

void HostMemoryBackend::upload(const float* host, float* device, std::size_t floats) {
    if (floats) std::memcpy(device, host, floats * sizeof(float));
}

void HostMemoryBackend::download(const float* device, float* host, std::size_t floats) {
    if (floats) std::memcpy(host, device, floats * sizeof(float));
}

void HostMemoryBackend::upload_labels(const std::int32_t* host, float* device, std::size_t count) {
    std::transform(host, host + count, device, [](std::int32_t label) { return float(label); });
}

void HostMemoryBackend::fill(float* device, std::size_t floats, float value) {
    std::fill_n(device, floats, value);
}

void HostMemoryBackend::copy(std::size_t n, const float* src, float* dst) {
    if (n) std::memcpy(dst, src, n * sizeof(float));
}

std::unique_ptr<OpClock> HostMemoryBackend::make_op_clock(std::size_t capacity) {
    return std::make_unique<SteadyOpClock>(capacity);
}

DeviceBuffer HostMemoryBackend::resident_copy(const float* host, std::size_t /*floats*/) {
    // Not owned: the caller keeps the host values alive as long as the buffer.
    return DeviceBuffer(const_cast<float*>(host), [](float*) {});
}

void HostMemoryBackend::gather_rows(const float* rows, std::size_t row_floats,
                                    const float* indices, std::size_t count, float* out) {
    for (std::size_t k = 0; k < count; ++k)
        std::copy_n(rows + gathered_row_start(indices, k, row_floats), row_floats,
                    out + k * row_floats);
}

void HostMemoryBackend::add_loss_to_totals(LossKind kind, int batch, int classes,
                                           const float* outputs, const float* labels,
                                           float* doutputs, float grad_scale, float* totals) {
    const LossResult loss =
        kind == LossKind::nll
            ? nll_loss(batch, classes, outputs, labels, doutputs, grad_scale)
            : softmax_cross_entropy(batch, classes, outputs, labels, doutputs, grad_scale);
    add_to_loss_totals(*loss_totals_in(totals), loss.loss_sum, loss.correct);
}

Backend::LossResult HostMemoryBackend::take_loss_totals(float* totals) {
    // The host backends' losses throw on a bad label at once: none is left to report.
    LossTotals& sums = *loss_totals_in(totals);
    const LossResult result{sums.loss_sum, std::int64_t(sums.correct)};
    sums = {};
    return result;
}

}  // namespace dp
