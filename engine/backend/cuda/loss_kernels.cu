// Softmax cross-entropy, log-softmax and NLL. A row is one thread's work:
// rows have a handful of classes (10 here).
#include <climits>

#include "backend/cuda/kernel_launch.cuh"

namespace dp::cuda {
namespace {

// The first index of the largest value (reference::first_arg_max).
__device__ int first_arg_max(const float* row, int classes) {
    int best = 0;
    for (int c = 1; c < classes; ++c)
        if (row[c] > row[best]) best = c;
    return best;
}

// host_kernels.cpp's log_sum_exp, in float.
__device__ float log_sum_exp(const float* z, int classes) {
    const float max_value = z[first_arg_max(z, classes)];
    float sum_exp = 0;
    for (int c = 0; c < classes; ++c) sum_exp += expf(z[c] - max_value);
    return max_value + logf(sum_exp);
}

// What one thread accumulates over its rows; combined over the block in a
// fixed order.
struct RowTotals {
    double loss_sum = 0;
    long long correct = 0;
    int bad_row = -1;
};

__device__ int label_of(const float* labels, int n, int classes, RowTotals& totals) {
    const int label = int(labels[n]);
    if (label >= 0 && label < classes) return label;
    if (totals.bad_row < 0 || n < totals.bad_row) totals.bad_row = n;
    return -1;
}

// The block's sums into `sums`, or added to `add_to` when it is not null.
__device__ void store_totals(RowTotals totals, const float* labels, LossSums* sums,
                             LossTotals* add_to) {
    const double loss_sum = block_sum(totals.loss_sum);
    const long long correct = block_sum(totals.correct);
    // The first bad row: rows without one count as "after every row".
    const int bad_row = block_reduce(totals.bad_row < 0 ? INT_MAX : totals.bad_row,
                                     [](int a, int b) { return min(a, b); });
    if (threadIdx.x == 0 && add_to) {  // one block: the calls add in stream order
        add_to_loss_totals(*add_to, loss_sum, correct);
        if (bad_row != INT_MAX) note_bad_row(*add_to, bad_row, int(labels[bad_row]));
    } else if (threadIdx.x == 0) {
        sums->loss_sum = loss_sum;
        sums->correct = correct;
        sums->bad_row = bad_row == INT_MAX ? -1 : bad_row;
        sums->bad_label = bad_row == INT_MAX ? 0 : int(labels[bad_row]);
    }
}

// One block of kThreads threads, each taking rows n = threadIdx.x + k * kThreads.
__global__ void softmax_cross_entropy_kernel(int batch, int classes, const float* logits,
                                             const float* labels, float* dlogits,
                                             float grad_scale, LossSums* sums,
                                             LossTotals* add_to) {
    RowTotals totals;
    for (int n = threadIdx.x; n < batch; n += blockDim.x) {
        const float* z = logits + std::size_t(n) * classes;
        const int label = label_of(labels, n, classes, totals);
        if (label < 0) continue;
        if (first_arg_max(z, classes) == label) ++totals.correct;
        const float log_z = log_sum_exp(z, classes);
        totals.loss_sum += double(log_z - z[label]);
        if (dlogits) {
            float* dz = dlogits + std::size_t(n) * classes;
            for (int c = 0; c < classes; ++c)
                dz[c] = grad_scale * (expf(z[c] - log_z) - (c == label ? 1.f : 0.f));
        }
    }
    store_totals(totals, labels, sums, add_to);
}

__global__ void nll_loss_kernel(int batch, int classes, const float* log_probs,
                                const float* labels, float* dlog_probs, float grad_scale,
                                LossSums* sums, LossTotals* add_to) {
    RowTotals totals;
    for (int n = threadIdx.x; n < batch; n += blockDim.x) {
        const float* row = log_probs + std::size_t(n) * classes;
        const int label = label_of(labels, n, classes, totals);
        if (label < 0) continue;
        if (first_arg_max(row, classes) == label) ++totals.correct;
        totals.loss_sum -= double(row[label]);
        if (dlog_probs) {
            float* d = dlog_probs + std::size_t(n) * classes;
            for (int c = 0; c < classes; ++c) d[c] = c == label ? -grad_scale : 0.f;
        }
    }
    store_totals(totals, labels, sums, add_to);
}

__global__ void log_softmax_forward_kernel(int batch, int classes, const float* x, float* y) {
    grid_stride(std::size_t(batch), [&](std::size_t n) {
        const float* z = x + n * classes;
        const float log_z = log_sum_exp(z, classes);
        for (int c = 0; c < classes; ++c) y[n * classes + c] = z[c] - log_z;
    });
}

__global__ void log_softmax_backward_kernel(int batch, int classes, const float* y,
                                            const float* dy, float* dx) {
    grid_stride(std::size_t(batch), [&](std::size_t n) {
        const std::size_t row = n * classes;
        float dy_sum = 0;
        for (int c = 0; c < classes; ++c) dy_sum += dy[row + c];
        for (int c = 0; c < classes; ++c) dx[row + c] = dy[row + c] - expf(y[row + c]) * dy_sum;
    });
}

}  // namespace

void softmax_cross_entropy(const Launch& launch, int batch, int classes, const float* logits,
                           const float* labels, float* dlogits, float grad_scale,
                           LossSums* sums, LossTotals* totals) {
    softmax_cross_entropy_kernel<<<1, kThreads, 0, launch.stream>>>(batch, classes, logits, labels,
                                                                    dlogits, grad_scale, sums,
                                                                    totals);
    DP_CHECK_LAUNCH(launch, "softmax_cross_entropy_kernel");
}

void nll_loss(const Launch& launch, int batch, int classes, const float* log_probs,
              const float* labels, float* dlog_probs, float grad_scale, LossSums* sums,
              LossTotals* totals) {
    nll_loss_kernel<<<1, kThreads, 0, launch.stream>>>(batch, classes, log_probs, labels,
                                                       dlog_probs, grad_scale, sums, totals);
    DP_CHECK_LAUNCH(launch, "nll_loss_kernel");
}

void log_softmax_forward(const Launch& launch, int batch, int classes, const float* x, float* y) {
    if (batch <= 0) return;
    log_softmax_forward_kernel<<<blocks_for(std::size_t(batch)), kThreads, 0, launch.stream>>>(
        batch, classes, x, y);
    DP_CHECK_LAUNCH(launch, "log_softmax_forward_kernel");
}

void log_softmax_backward(const Launch& launch, int batch, int classes, const float* y,
                          const float* dy, float* dx) {
    if (batch <= 0) return;
    log_softmax_backward_kernel<<<blocks_for(std::size_t(batch)), kThreads, 0, launch.stream>>>(
        batch, classes, y, dy, dx);
    DP_CHECK_LAUNCH(launch, "log_softmax_backward_kernel");
}

}  // namespace dp::cuda
