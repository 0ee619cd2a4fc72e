#pragma once

// What the sync-free step keeps in device memory (issue 40): the loss sums
// that Backend::add_loss_to_totals adds into, and the index arithmetic of
// Backend::gather_rows. Plain C++ that the CUDA kernels include too, so the
// CPU tests check the arithmetic the GPU runs.

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define DP_LOSS_HOST_DEVICE __host__ __device__
#else
#define DP_LOSS_HOST_DEVICE
#endif

namespace dp {

// The layout of Backend::kLossTotalsFloats floats of totals (its .cpp
// files check that it fits). bad_row is 1 + the first row, over the calls
// since the last take, whose label was not a class index (0: none, as a
// zeroed buffer reads; a GPU kernel notes it and goes on), bad_label its label.
struct LossTotals {
    double loss_sum;
    long long correct;
    int bad_row;
    int bad_label;
};
inline LossTotals* loss_totals_in(float* totals) { return reinterpret_cast<LossTotals*>(totals); }

DP_LOSS_HOST_DEVICE inline void add_to_loss_totals(LossTotals& totals, double loss_sum,
                                                   long long correct) {
    totals.loss_sum += loss_sum;
    totals.correct += correct;
}
DP_LOSS_HOST_DEVICE inline void note_bad_row(LossTotals& totals, int row, int label) {
    if (totals.bad_row == 0) {
        totals.bad_row = row + 1;
        totals.bad_label = label;
    }
}
inline int bad_row_of(const LossTotals& totals) { return totals.bad_row - 1; }

// Where row k of a gather starts in the rows: the k-th index (a float, as
// labels are kept) times the row's length.
DP_LOSS_HOST_DEVICE inline std::size_t gathered_row_start(const float* indices, std::size_t k,
                                                          std::size_t row_floats) {
    return std::size_t(indices[k]) * row_floats;
}

}  // namespace dp
