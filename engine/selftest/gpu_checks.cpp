#include "selftest/gpu_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <thread>

#include <cuda_runtime.h>

#include "backend/backend_factory.h"
#include "backend/cuda/conv_algorithm_accuracy.h"
#include "backend/cuda_backend_options.h"
#include "backend/reference/reference_backend.h"
#include "core/error.h"
#include "data/dataset.h"
#include "devices/device.h"
#include "devices/device_thread.h"
#include "parallel/collective_schedule.h"
#include "parallel/communicator_factory.h"
#include "parallel/nccl_communicator.h"
#include "parallel/replica_copy_communicator.h"
#include "platform/cuda/cuda_devices.h"
#include "platform/cuda/driver_allocations.h"
#include "selftest/training_checks.h"

namespace dp::gpu_checks {
namespace {

using Floats = std::vector<float>;

Floats random_floats(std::size_t n, float low, float high, std::mt19937& rng) {
    std::uniform_real_distribution<float> distribution(low, high);
    Floats values(n);
    for (float& value : values) value = distribution(rng);
    return values;
}

// The largest |a - b| / max(|a|, |b|, 1): relative for large values,
// absolute below 1.
double worst_difference(const Floats& a, const Floats& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double scale = std::max({std::abs(double(a[i])), std::abs(double(b[i])), 1.0});
        const double difference = std::abs(double(a[i]) - double(b[i])) / scale;
        worst = std::max(worst, std::isnan(difference) ? std::numeric_limits<double>::infinity()
                                                       : difference);
    }
    return worst;
}

// One op as a test case: its inputs, the sizes of its outputs, and how to
// run it on a backend (device pointers in, device pointers out). Outputs
// start as NaN, so an element left unwritten fails.
struct OpCase {
    std::string name;
    double tolerance;  // of worst_difference against the reference
    std::vector<Floats> inputs;
    std::vector<std::size_t> output_sizes;
    std::function<void(Backend&, const std::vector<float*>& in, const std::vector<float*>& out)>
        run;
};

std::vector<Floats> run_case(Backend& backend, const OpCase& op) {
    std::vector<DeviceBuffer> buffers;
    std::vector<float*> in, out;
    for (const Floats& input : op.inputs) {
        buffers.push_back(backend.allocate(input.size()));
        backend.upload(input.data(), buffers.back().get(), input.size());
        in.push_back(buffers.back().get());
    }
    for (std::size_t size : op.output_sizes) {
        buffers.push_back(backend.allocate(size));
        backend.fill(buffers.back().get(), size, std::numeric_limits<float>::quiet_NaN());
        out.push_back(buffers.back().get());
    }
    op.run(backend, in, out);
    std::vector<Floats> results;
    for (std::size_t i = 0; i < out.size(); ++i) {
        results.emplace_back(op.output_sizes[i]);
        backend.download(out[i], results.back().data(), results.back().size());
    }
    return results;
}

// A loss's sums written into a 2-float output, so they compare like tensors.
void store_loss(Backend& backend, const Backend::LossResult& loss, float* out) {
    backend.fill(out, 1, float(loss.loss_sum));
    backend.fill(out + 1, 1, float(loss.correct));
}

// Tolerances: the kernels follow the reference's arithmetic in the same
// order where they can (pooling, dropout, elementwise, SGD: exact); cuDNN
// and cuBLAS sum products in their own order (1e-4 for sums of ~500 float
// products of values near 1); batch norm reduces in double in another order
// and normalizes in float (1e-5); softmax uses CUDA's expf/logf, a few ulp
// from glibc's (1e-5).
std::vector<OpCase> op_cases() {
    std::mt19937 rng(20240607);
    std::vector<OpCase> cases;
    auto values = [&](std::size_t n) { return random_floats(n, -1.f, 1.f, rng); };

    for (const Conv2dShape s : {Conv2dShape{4, 3, 11, 11, 5, 3, 2, 1},
                                Conv2dShape{2, 6, 8, 8, 4, 5, 1, 2},
                                Conv2dShape{0, 2, 5, 5, 3, 3, 1, 1}}) {
        const std::size_t weights = s.weight_size();
        const std::string shape = "conv2d batch " + std::to_string(s.batch) + " kernel " +
                                  std::to_string(s.kernel);
        cases.push_back({shape + " forward", 1e-4, {values(s.input_size()), values(weights),
                                                    values(s.out_channels)},
                         {s.output_size()},
                         [s](Backend& b, const auto& in, const auto& out) {
                             b.conv2d_forward(s, in[0], in[1], in[2], out[0]);
                         }});
        cases.push_back({shape + " backward", 1e-4,
                         {values(s.input_size()), values(weights), values(s.output_size())},
                         {s.input_size(), weights, std::size_t(s.out_channels)},
                         [s](Backend& b, const auto& in, const auto& out) {
                             b.conv2d_backward_data(s, in[2], in[1], out[0]);
                             b.conv2d_backward_weights(s, in[0], in[2], out[1], out[2]);
                         }});
    }

    cases.push_back({"relu", 0, {values(1000), values(1000)}, {1000, 1000},
                     [](Backend& b, const auto& in, const auto& out) {
                         b.relu_forward(1000, in[0], out[0]);
                         b.relu_backward(1000, out[0], in[1], out[1]);
                     }});

    for (const Pool2dShape s : {Pool2dShape{2, 3, 9, 9, 3, 2, 1}, Pool2dShape{3, 2, 8, 7, 2, 2, 0}}) {
        const std::string shape = "pool2d kernel " + std::to_string(s.kernel);
        cases.push_back({"avg_" + shape, 1e-6, {values(s.input_size()), values(s.output_size())},
                         {s.output_size(), s.input_size()},
                         [s](Backend& b, const auto& in, const auto& out) {
                             b.avg_pool2d_forward(s, in[0], out[0]);
                             b.avg_pool2d_backward(s, in[1], out[1]);
                         }});
        cases.push_back({"relu_avg_" + shape, 1e-6,
                         {values(s.input_size()), values(s.output_size())},
                         {s.output_size(), s.input_size()},
                         [s](Backend& b, const auto& in, const auto& out) {
                             b.relu_avg_pool2d_forward(s, in[0], out[0]);
                             b.relu_avg_pool2d_backward(s, in[0], in[1], out[1]);
                         }});
        // Values in steps of 0.25 make ties, which the first maximum wins.
        Floats tied = values(s.input_size());
        for (float& value : tied) value = std::round(value * 4) / 4;
        cases.push_back({"max_" + shape + " with ties", 0, {tied, values(s.output_size())},
                         {s.output_size(), s.input_size()},
                         [s](Backend& b, const auto& in, const auto& out) {
                             const std::size_t bytes = b.max_pool2d_workspace_size(s);
                             DeviceBuffer workspace = b.allocate((bytes + 3) / 4);
                             b.max_pool2d_forward(s, in[0], out[0], workspace.get());
                             b.max_pool2d_backward(s, in[1], workspace.get(), out[1]);
                         }});
    }

    const NchwShape planes{3, 4, 5, 6};
    const std::size_t plane_elements = 3 * 4 * 5 * 6;
    cases.push_back({"global_avg_pool2d", 1e-6, {values(plane_elements), values(12)},
                     {12, plane_elements},
                     [planes](Backend& b, const auto& in, const auto& out) {
                         b.global_avg_pool2d_forward(planes, in[0], out[0]);
                         b.global_avg_pool2d_backward(planes, in[1], out[1]);
                     }});

    cases.push_back({"add, copy, scale, fill, sgd_update", 0, {values(777), values(777)},
                     {777, 777, 777, 777},
                     [](Backend& b, const auto& in, const auto& out) {
                         b.add(777, in[0], in[1], out[0]);
                         b.copy(777, in[0], out[1]);
                         b.scale(777, 0.3f, out[1]);
                         b.fill(out[2], 777, 2.5f);
                         b.copy(777, in[0], out[3]);
                         b.sgd_update(777, 0.1f, out[3], in[1]);
                     }});

    // Masks must match the CPU's bit for bit, whatever the shard offset.
    const DropoutConfig dropout{.p = 0.3f, .seed = 42, .step = 7, .offset = 1000};
    cases.push_back({"dropout and dropout2d", 0, {values(plane_elements), values(plane_elements)},
                     {plane_elements, plane_elements, plane_elements, plane_elements,
                      plane_elements},
                     [dropout, planes](Backend& b, const auto& in, const auto& out) {
                         b.dropout_forward(plane_elements, dropout, in[0], out[0], out[1]);
                         b.dropout2d_forward(planes, dropout, in[0], out[2], out[3]);
                         b.dropout_backward(plane_elements, out[1], in[1], out[4]);
                     }});

    // The second shape's channels are summed over many blocks each
    // (channel_reduction_plan.h's slices), the first's in one.
    for (const BatchNorm2dShape& bn :
         {BatchNorm2dShape{.batch = 4, .channels = 3, .h = 5, .w = 6, .eps = 1e-3f,
                           .momentum = 0.2f},
          BatchNorm2dShape{.batch = 33, .channels = 3, .h = 29, .w = 31, .eps = 1e-3f,
                           .momentum = 0.2f}}) {
        const std::size_t bn_elements = bn.size(), count = std::size_t(bn.count_per_channel());
        std::string bn_name = " ";
        bn_name += std::to_string(bn.batch) + "x3x" + std::to_string(bn.h) + "x";
        bn_name += std::to_string(bn.w);
        // Inputs: x (offset from 0 so that shifted sums matter), dy, gamma, beta,
        // running mean and variance.
        auto bn_inputs = [&] {
            Floats x = values(bn_elements);
            for (float& value : x) value += 3;
            Floats running_var = random_floats(3, 0.5f, 2.f, rng);
            return std::vector<Floats>{x, values(bn_elements), values(3), values(3), values(3),
                                       running_var};
        };
        cases.push_back({"batch_norm2d training forward and backward" + bn_name, 1e-5, bn_inputs(),
                         {bn_elements, 3, 3, 3, 3, bn_elements, 3, 3},
                         [bn](Backend& b, const auto& in, const auto& out) {
                             b.copy(3, in[4], out[3]);
                             b.copy(3, in[5], out[4]);
                             b.batch_norm2d_forward_training(bn, in[0], in[2], in[3], out[0],
                                                             out[1], out[2], out[3], out[4]);
                             b.batch_norm2d_backward(bn, in[0], in[1], in[2], out[1], out[2],
                                                     out[5], out[6], out[7]);
                         }});
        cases.push_back({"batch_norm2d synchronized pieces" + bn_name, 1e-5, bn_inputs(),
                         {3, 3, 3, 3, 3, 3, bn_elements, 3, 3, bn_elements},
                         [bn, count](Backend& b, const auto& in, const auto& out) {
                             b.copy(3, in[4], out[4]);
                             b.copy(3, in[5], out[5]);
                             b.batch_norm2d_sums(bn, in[0], out[4], out[0], out[1]);
                             b.batch_norm2d_stats_from_sums(bn, count, out[0], out[1], out[4],
                                                            out[2], out[3], out[4], out[5]);
                             b.batch_norm2d_forward_given_stats(bn, in[0], in[2], in[3], out[2],
                                                                out[3], out[6]);
                             b.batch_norm2d_backward_reduce(bn, in[0], in[1], out[2], out[3],
                                                            out[7], out[8]);
                             b.batch_norm2d_backward_elementwise(bn, count, in[0], in[1], in[2],
                                                                 out[2], out[3], out[7], out[8],
                                                                 out[9]);
                         }});
    }

    const LinearShape linear{.batch = 5, .in_features = 37, .out_features = 11};
    cases.push_back({"linear forward and backward", 1e-5,
                     {values(5 * 37), values(11 * 37), values(11), values(5 * 11)},
                     {5 * 11, 5 * 37, 11 * 37, 11},
                     [linear](Backend& b, const auto& in, const auto& out) {
                         b.linear_forward(linear, in[0], in[1], in[2], out[0]);
                         b.linear_backward_data(linear, in[3], in[1], out[1]);
                         b.linear_backward_weights(linear, in[0], in[3], out[2], out[3]);
                     }});

    // Bias gradients that cancel: pairs of rows +-(1e3..1e4) whose sum is
    // O(1). Summed in float, the partial sums' rounding (1e-3 at 1e4) stays
    // in the result; the reference sums in double, and so must the GPU. x is
    // zero, so the weight gradient is exactly 0 (cuBLAS's float sum of these
    // products is 1e-5 off the reference: not what this case is about).
    const LinearShape cancelling{.batch = 256, .in_features = 8, .out_features = 4};
    Floats dy_cancelling = random_floats(256 * 4, 1e3f, 1e4f, rng);
    for (int n = 1; n < 256; n += 2)
        for (int o = 0; o < 4; ++o)
            dy_cancelling[n * 4 + o] = -dy_cancelling[(n - 1) * 4 + o] + random_floats(1, -0.01f, 0.01f, rng)[0];
    cases.push_back({"linear bias gradient of a cancelling sum", 1e-5, {Floats(256 * 8, 0.f), dy_cancelling},
                     {4 * 8, 4},
                     [cancelling](Backend& b, const auto& in, const auto& out) {
                         b.linear_backward_weights(cancelling, in[0], in[1], out[0], out[1]);
                     }});

    const int rows = 300, classes = 10;  // more rows than a block has threads
    Floats labels(rows);
    for (int n = 0; n < rows; ++n) labels[n] = float((n * 7) % classes);
    Floats logits = random_floats(std::size_t(rows) * classes, -4.f, 4.f, rng);
    cases.push_back({"softmax_cross_entropy", 1e-5, {logits, labels},
                     {std::size_t(rows) * classes, 2},
                     [](Backend& b, const auto& in, const auto& out) {
                         store_loss(b, b.softmax_cross_entropy(rows, classes, in[0], in[1], out[0],
                                                               1.f / rows),
                                    out[1]);
                     }});
    cases.push_back({"log_softmax and nll_loss", 1e-5,
                     {logits, labels, values(std::size_t(rows) * classes)},
                     {std::size_t(rows) * classes, std::size_t(rows) * classes,
                      std::size_t(rows) * classes, 2},
                     [](Backend& b, const auto& in, const auto& out) {
                         b.log_softmax_forward(rows, classes, in[0], out[0]);
                         b.log_softmax_backward(rows, classes, out[0], in[2], out[1]);
                         store_loss(b, b.nll_loss(rows, classes, out[0], in[1], out[2], 0.5f),
                                    out[3]);
                     }});
    // The sync-free step's ops (issue 40): the loss summed into device
    // totals over two calls and read once, and a batch gathered by index.
    cases.push_back({"add_loss_to_totals twice, then take_loss_totals", 1e-5, {logits, labels},
                     {std::size_t(rows) * classes, 2, Backend::kLossTotalsFloats},
                     [](Backend& b, const auto& in, const auto& out) {
                         for (int i = 0; i < 2; ++i)
                             b.add_loss_to_totals(Backend::LossKind::softmax_cross_entropy, rows,
                                                  classes, in[0], in[1], out[0], 1.f / rows, out[2]);
                         store_loss(b, b.take_loss_totals(out[2]), out[1]);
                     }});
    cases.push_back({"gather_rows", 1e-7, {logits, Floats{5, 0, 299, 17}}, {4 * std::size_t(classes)},
                     [](Backend& b, const auto& in, const auto& out) {
                         b.gather_rows(in[0], classes, in[1], 4, out[0]);
                     }});
    return cases;
}

DeviceInfo first_gpu() { return select_devices({"cuda:0"}).front(); }

// Runs job(rank) on a thread per device, as ReplicaGroup does.
void on_device_threads(const std::vector<DeviceInfo>& devices,
                       const std::function<void(int rank)>& job) {
    std::vector<std::unique_ptr<DeviceThread>> threads;
    for (const DeviceInfo& device : devices) threads.push_back(std::make_unique<DeviceThread>(device));
    for (int rank = 0; rank < int(threads.size()); ++rank)
        threads[rank]->start([&job, rank] { job(rank); });
    for (auto& thread : threads) thread->wait();
}

std::string format_difference(double difference) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", difference);
    return text;
}

}  // namespace

std::vector<std::string> gpu_ids() {
    std::vector<std::string> ids;
    for (const DeviceInfo& device : available_devices())
        if (device.kind == DeviceKind::cuda) ids.push_back(device.id);
    return ids;
}

std::string ops_match_reference() {
    const DeviceInfo gpu = first_gpu();
    ReferenceBackend reference;
    int checked = 0;
    on_device_threads({gpu}, [&](int) {
        auto cuda = make_backend(gpu);
        for (const OpCase& op : op_cases()) {
            const auto expected = run_case(reference, op);
            const auto actual = run_case(*cuda, op);
            for (std::size_t i = 0; i < expected.size(); ++i) {
                const double difference = worst_difference(actual[i], expected[i]);
                if (difference > op.tolerance)
                    throw Error(op.name + ", output " + std::to_string(i) + ": difference " +
                                format_difference(difference) + " from the reference exceeds " +
                                format_difference(op.tolerance));
            }
            ++checked;
        }
    });
    return std::to_string(checked) + " op cases on " + gpu.id + " match the reference backend";
}

namespace {

// Every all-reduce strategy and a broadcast through make(strategy) on the
// threads of `devices`, against `expected(strategy)`'s sums; `tolerance` 0
// asks for the same bits.
using MakeCommunicator = std::function<std::unique_ptr<Communicator>(const std::string& strategy)>;
using ExpectedSums = std::function<Floats(const std::string& strategy, const std::vector<Floats>&)>;

std::string collectives_match(const std::vector<DeviceInfo>& devices, const MakeCommunicator& make,
                              const ExpectedSums& expected, double tolerance) {
    const int ranks = int(devices.size());
    const std::size_t count = (std::size_t(1) << 20) + 3;  // several chunks and a ragged end
    std::mt19937 rng(7);
    std::vector<Floats> inputs;
    for (int rank = 0; rank < ranks; ++rank) inputs.push_back(random_floats(count, -1.f, 1.f, rng));
    for (const std::string& strategy : all_reduce_strategies()) {
        const auto communicator = make(strategy);
        const Floats sum = expected(strategy, inputs);
        std::vector<Floats> reduced(ranks, Floats(count)), broadcast(ranks, Floats(count));
        on_device_threads(devices, [&](int rank) {
            auto backend = make_backend(devices[rank]);
            DeviceBuffer data = backend->allocate(count);
            backend->upload(inputs[rank].data(), data.get(), count);
            communicator->all_reduce_sum(rank, data.get(), count);
            backend->download(data.get(), reduced[rank].data(), count);
            backend->upload(inputs[rank].data(), data.get(), count);
            communicator->broadcast(rank, data.get(), count, ranks - 1);
            backend->download(data.get(), broadcast[rank].data(), count);
        });
        for (int rank = 0; rank < ranks; ++rank) {
            const double difference = worst_difference(reduced[rank], sum);
            if (difference > tolerance)
                throw Error(strategy + " all-reduce on " + devices[rank].id +
                            " differs from the host's sum by " + format_difference(difference));
            if (broadcast[rank] != inputs[ranks - 1])
                throw Error("broadcast from " + devices[ranks - 1].id + " to " + devices[rank].id +
                            " is not an exact copy");
        }
    }
    return "all-reduce (naive, ring) and broadcast over " + std::to_string(ranks) + " " +
           (ranks == 1 ? "device" : "devices") + " match the host";
}

}  // namespace

std::string nccl_collectives_match_host() {
    const auto gpus = select_devices({"cuda:all"});
    std::vector<int> ordinals;
    for (const DeviceInfo& gpu : gpus) ordinals.push_back(gpu.cuda_ordinal);
    const auto host_sum = [](const std::string&, const std::vector<Floats>& inputs) {
        Floats sum(inputs[0].size(), 0.f);
        for (const Floats& input : inputs)
            for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += input[i];
        return sum;
    };
    // Sums of N floats in NCCL's order against the host's.
    return "NCCL: " + collectives_match(
                          gpus,
                          [&](const std::string& strategy) {
                              return std::make_unique<NcclCommunicator>(ordinals, strategy);
                          },
                          host_sum, 1e-6 * double(gpus.size()));
}

std::string replica_collectives_match_threads() {
    const auto replicas = select_devices({"cuda:0x3"});
    const int ranks = int(replicas.size());
    // The same schedule on host threads: the same additions in the same order.
    const auto thread_sum = [&](const std::string& strategy, std::vector<Floats> buffers) {
        const auto threads = make_thread_communicator(parse_all_reduce_strategy(strategy), ranks);
        std::vector<std::thread> workers;
        for (int rank = 0; rank < ranks; ++rank)
            workers.emplace_back([&, rank] {
                threads->all_reduce_sum(rank, buffers[rank].data(), buffers[rank].size());
            });
        for (auto& worker : workers) worker.join();
        return buffers[0];
    };
    return "replicas on cuda:0: " +
           collectives_match(
               replicas,
               [&](const std::string& strategy) {
                   return std::make_unique<ReplicaCopyCommunicator>(0, ranks, strategy);
               },
               thread_sum, 0);
}

std::string conv_algorithms_round_like_fp32() {
    // LeNet's two convolutions (models/lenet.cpp) and a ResNet-18 3x3 block convolution.
    const Conv2dShape shapes[] = {
        {.batch = 256, .in_channels = 1, .in_h = 28, .in_w = 28, .out_channels = 20, .kernel = 3},
        {.batch = 256, .in_channels = 20, .in_h = 13, .in_w = 13, .out_channels = 50, .kernel = 5},
        {.batch = 32, .in_channels = 64, .in_h = 14, .in_w = 14, .out_channels = 64, .kernel = 3, .pad = 1},
    };
    // A float32 sum of K products is off by about sqrt(K) * 6e-8 relative:
    // 1e-5 leaves a margin of 10x for K in the thousands, and catches an
    // algorithm that rounds 100x coarser, or one running in TF32 (5e-4).
    constexpr double limit = 1e-5;
    const std::size_t workspace = cuda_backend_options_from_environment().workspace_bytes;
    std::string table, failures;
    for (const Conv2dShape& shape : shapes) {
        const auto rows = cuda::conv_algorithm_errors(0, shape, workspace);
        table += "\n  " + std::to_string(shape.batch) + "x" + std::to_string(shape.in_channels) + "x" +
                 std::to_string(shape.in_h) + "x" + std::to_string(shape.in_w) + " k" +
                 std::to_string(shape.kernel) + " -> " + std::to_string(shape.out_channels) + ":";
        std::string pass;
        for (const auto& row : rows) {
            if (row.pass != pass) table += "\n    " + (pass = row.pass) + ":";
            char cell[64];
            if (row.ran)
                std::snprintf(cell, sizeof cell, " %d%s%s %.1e", row.algorithm, row.transform ? "T" : "",
                              row.deterministic ? "" : "*", row.relative_error);
            else
                std::snprintf(cell, sizeof cell, " %d%s -", row.algorithm, row.transform ? "T" : "");
            table += cell;
            if (row.ran && !row.transform && row.relative_error > limit)
                failures += (failures.empty() ? "" : ", ") + row.pass + " algorithm " +
                            std::to_string(row.algorithm) + " " + format_difference(row.relative_error);
        }
    }
    if (!failures.empty())
        throw Error("fp32 convolution algorithms off float64 by more than " + format_difference(limit) +
                    ": " + failures + table);
    return "every non-transform fp32 algorithm within " + format_difference(limit) +
           " of float64 (T: FFT or Winograd, left out of fp32; *: not deterministic)" + table;
}

std::string training_on_n_gpus_matches_one() {
    const TrainTestSets data = selftest::training_subset();
    constexpr int steps = 20;
    // Different summation orders (oneDNN, cuDNN) grow over 20 steps to about 1e-4.
    std::string summary = selftest::training_matches({"cpu:0"}, {"cuda:0"}, data, steps, 1e-3);
    // Replicas on one GPU: the whole multi-device path (split batch, device
    // all-reduce overlapped with backward) at the same global batch. cuDNN
    // may pick other algorithms for the smaller shards, hence 1e-4, not bits.
    summary += "; " + selftest::training_matches({"cuda:0"}, {"cuda:0x2"}, data, steps, 1e-4);
    const auto all = gpu_ids();
    if (all.size() > 1)
        summary += "; " + selftest::training_matches({"cuda:0"}, all, data, steps, 1e-4);
    else
        summary += " (one GPU: NCCL over several GPUs needs two)";
    return summary;
}

std::string no_allocation_in_step_loop() {
    const TrainTestSets data = selftest::training_subset();
    auto gpus = gpu_ids();
    if (gpus.size() == 1) gpus = {"cuda:0x2"};  // replicas, so the device all-reduce runs too
    const auto devices = select_devices(gpus);
    const auto probe = [&] {
        std::vector<std::size_t> numbers{std::size_t(cuda_driver_allocations())};
        for (const DeviceInfo& device : devices) {
            std::size_t free = 0, total = 0;
            use_cuda_device(device.cuda_ordinal);
            if (cudaMemGetInfo(&free, &total) != cudaSuccess)
                throw Error("cudaMemGetInfo failed on " + device.id);
            numbers.push_back(free);
        }
        return numbers;
    };
    return selftest::steps_allocate_nothing(gpus, data, probe) +
           " (backend counter and cudaMemGetInfo)";
}

const std::vector<NamedCheck>& all_checks() {
    static const std::vector<NamedCheck> checks{
        {"ops", &ops_match_reference},
        {"conv_algorithms", &conv_algorithms_round_like_fp32},
        {"collectives", &nccl_collectives_match_host},
        {"replica_collectives", &replica_collectives_match_threads},
        {"training", &training_on_n_gpus_matches_one},
        {"step_allocations", &no_allocation_in_step_loop},
        {"step_graphs", &step_graphs_replay_like_eager},
    };
    return checks;
}

}  // namespace dp::gpu_checks
