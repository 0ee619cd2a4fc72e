// CudaBackend's ops of the sync-free step (issue 40): the clock of CUDA
// events that times a step's phases and calls, the resident data set and its
// gather, and the loss summed on the device.

#include <cstring>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend_impl.h"
#include "backend/loss_totals.h"
#include "core/error.h"
#include "platform/cuda/cuda_check.h"

namespace dp::cuda {
namespace {

static_assert(sizeof(LossTotals) <= Backend::kLossTotalsFloats * sizeof(float));

// Marks are events recorded on the backend's stream. Under a step's capture
// (DP_CUDA_GRAPHS=1) a mark becomes an event record node of the graph
// (cudaEventRecordExternal; outside a capture the flag changes nothing), so
// each replay records the step's phase events again without the host
// calling mark(): seconds() therefore keeps no note of the latest mark and
// waits for its `to` event each time, at once when it has completed.
class CudaEventClock final : public OpClock {
public:
    CudaEventClock(int device, cudaStream_t stream, std::size_t capacity)
        : device_(device), stream_(stream), events_(capacity, nullptr) {
        for (cudaEvent_t& event : events_) DP_CUDA_CHECK(device_, cudaEventCreate(&event));
    }
    ~CudaEventClock() override {
        for (cudaEvent_t event : events_)
            if (event) cudaEventDestroy(event);  // errors: nothing left to do
    }
    CudaEventClock(const CudaEventClock&) = delete;
    CudaEventClock& operator=(const CudaEventClock&) = delete;

    std::size_t capacity() const override { return events_.size(); }
    void mark(std::size_t slot) override {
        DP_CUDA_CHECK(device_,
                      cudaEventRecordWithFlags(events_[slot], stream_, cudaEventRecordExternal));
    }
    double seconds(std::size_t from, std::size_t to) override {
        DP_CUDA_CHECK(device_, cudaEventSynchronize(events_[to]));
        float ms = 0;
        DP_CUDA_CHECK(device_, cudaEventElapsedTime(&ms, events_[from], events_[to]));
        return double(ms) * 1e-3;
    }

private:
    int device_;
    cudaStream_t stream_;
    std::vector<cudaEvent_t> events_;
};

}  // namespace

std::unique_ptr<OpClock> CudaBackend::make_op_clock(std::size_t capacity) {
    return std::make_unique<CudaEventClock>(device_, stream_.get(), capacity);
}

DeviceBuffer CudaBackend::resident_copy(const float* host, std::size_t floats) {
    DeviceBuffer copy = allocate(floats);
    upload(host, copy.get(), floats);
    return copy;
}

void CudaBackend::gather_rows(const float* rows, std::size_t row_floats, const float* indices,
                              std::size_t count, float* out) {
    cuda::gather_rows(launch(), rows, row_floats, indices, count, out);
}

void CudaBackend::add_loss_to_totals(LossKind kind, int batch, int classes, const float* outputs,
                                     const float* labels, float* doutputs, float grad_scale,
                                     float* totals) {
    LossTotals* sums = loss_totals_in(totals);
    if (kind == LossKind::nll)
        cuda::nll_loss(launch(), batch, classes, outputs, labels, doutputs, grad_scale, nullptr,
                       sums);
    else
        cuda::softmax_cross_entropy(launch(), batch, classes, outputs, labels, doutputs,
                                    grad_scale, nullptr, sums);
}

Backend::LossResult CudaBackend::take_loss_totals(float* totals) {
    // Through the pinned LossSums buffer, the same size and alignment.
    static_assert(sizeof(LossTotals) == sizeof(cuda::LossSums));
    DP_CUDA_CHECK(device_, cudaMemcpyAsync(host_loss_sums_.get(), totals, sizeof(LossTotals),
                                           cudaMemcpyDeviceToHost, stream_.get()));
    DP_CUDA_CHECK(device_, cudaMemsetAsync(totals, 0, sizeof(LossTotals), stream_.get()));
    synchronize();
    LossTotals sums;
    std::memcpy(&sums, host_loss_sums_.get(), sizeof sums);
    if (bad_row_of(sums) >= 0)
        throw Error("label " + std::to_string(sums.bad_label) + " of row " +
                    std::to_string(bad_row_of(sums)) +
                    " of a training batch is not a class index: labels count the classes from 0");
    return {sums.loss_sum, std::int64_t(sums.correct)};
}

}  // namespace dp::cuda
