// CudaBackend's linear layers on cuBLAS, the bias added and its gradient
// summed by the backend's own kernels. cuBLAS is column-major: a row-major
// [rows, cols] matrix is its transpose, so y = x w^T is computed as
// y^T = w x^T.

#include "backend/cuda/cuda_backend_impl.h"
#include "platform/cuda/cuda_check.h"

namespace dp::cuda {

void CudaBackend::linear_forward(const LinearShape& s, const float* x, const float* w,
                                 const float* b, float* y) {
    if (s.batch == 0) return;
    LinearCopies& copies = linear_copies(s);
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, s.out_features, s.batch, s.in_features,
         {w, copies.w, s.weight_size()}, s.in_features, {x, copies.x, s.input_size()},
         s.in_features, y, s.out_features);
    cuda::add_channel_bias(launch(), s.batch, s.out_features, 1, b, y);
}

// dx = dy w, as dx^T = w^T dy^T
void CudaBackend::linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                       float* dx) {
    if (s.batch == 0) return;
    LinearCopies& copies = linear_copies(s);
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, s.in_features, s.batch, s.out_features,
         {w, copies.w, s.weight_size()}, s.in_features, {dy, copies.dy, s.output_size()},
         s.out_features, dx, s.in_features);
}

// dw = dy^T x, as dw^T = x^T dy; db = dy summed over the batch
void CudaBackend::linear_backward_weights(const LinearShape& s, const float* x, const float* dy,
                                          float* dw, float* db) {
    if (s.batch == 0) {
        fill(dw, s.weight_size(), 0.f);
        fill(db, std::size_t(s.out_features), 0.f);
        return;
    }
    LinearCopies& copies = linear_copies(s);
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, s.in_features, s.out_features, s.batch,
         {x, copies.x, s.input_size()}, s.in_features, {dy, copies.dy, s.output_size()},
         s.out_features, dw, s.in_features);
    cuda::channel_sums(launch(), s.batch, s.out_features, 1, dy, db);
}

// ---- bf16 precision's linear layers (CudaBackendOptions::bf16)

CudaBackend::LinearCopies& CudaBackend::linear_copies(const LinearShape& s) {
    return linear_copies_.get(s, [this](const LinearShape& shape) {
        LinearCopies copies;
        if (!bf16_) return copies;
        const auto copy = [this](std::size_t n) {
            return static_cast<std::uint16_t*>(arena_.allocate(n * sizeof(std::uint16_t)));
        };
        copies.x = copy(shape.input_size());
        copies.w = copy(shape.weight_size());
        copies.dy = copy(shape.output_size());
        return copies;
    });
}

void CudaBackend::gemm(cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k,
                       const GemmOperand& a, int lda, const GemmOperand& b, int ldb, float* c,
                       int ldc) {
    const float one = 1, zero = 0;
    if (!bf16_) {
        DP_CUDA_CHECK(device_, cublasSgemm(cublas_.get(), op_a, op_b, m, n, k, &one, a.values, lda,
                                           b.values, ldb, &zero, c, ldc));
        return;
    }
    cuda::round_to_bf16(launch(), a.n, a.values, a.copy);
    cuda::round_to_bf16(launch(), b.n, b.values, b.copy);
    DP_CUDA_CHECK(device_, cublasGemmEx(cublas_.get(), op_a, op_b, m, n, k, &one, a.copy,
                                        CUDA_R_16BF, lda, b.copy, CUDA_R_16BF, ldb, &zero, c,
                                        CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace dp::cuda
