#pragma once

// The checks of the CUDA backend that need a GPU, shared by the CTest
// executables (tests/gpu/test_gpu.cpp) and dp-gpu-selftest, which is why
// they live in the engine and not in tests/. Each returns a one-line summary
// and throws dp::Error naming the first failure.

#include <string>
#include <vector>

namespace dp::gpu_checks {

// The exit code by which a test reports "skipped" to CTest (SKIP_RETURN_CODE).
constexpr int kSkipped = 77;

// The CUDA device ids ("cuda:0", ...), empty without a GPU or a driver.
std::vector<std::string> gpu_ids();

// Every op of the CUDA backend on cuda:0 against ReferenceBackend on random
// inputs, each with its tolerance (see gpu_checks.cpp).
std::string ops_match_reference();

// Every cuDNN convolution algorithm of each pass, in fp32 with FMA math, on
// LeNet's and a ResNet-18 shape against float64: the direct ones (those fp32
// may choose) within 1e-5; the table lists FFT and Winograd's too.
std::string conv_algorithms_round_like_fp32();

// NCCL all-reduce (both strategies) and broadcast over every GPU against a
// sum and a copy computed on the host.
std::string nccl_collectives_match_host();

// The device-copy all-reduce (both strategies) and broadcast among three
// replicas on cuda:0 give the same bits as the thread communicators, which
// run the same schedule on the host.
std::string replica_collectives_match_threads();

// LeNet on cuda:0 trains like on the CPU; on two replicas of cuda:0 and on
// every GPU, at the same global batch, it trains like on one GPU, with
// replicas bit-identical (selftest/training_checks.h).
std::string training_on_n_gpus_matches_one();

// Training steps after the first ask the driver for no memory (on every
// GPU, or on two replicas of a lone GPU).
std::string no_allocation_in_step_loop();

// dp-train's LeNet training step (Replica::train_step: the batch gathered on
// the device, forward, loss into device sums, backward, SGD) captured as
// CUDA Graphs after a warm-up step, one graph for the full batch and one for
// the last partial one, replays with the bits of eager steps over 3 epochs
// (deterministic mode; step_graph_check.cpp).
std::string step_graphs_replay_like_eager();

struct NamedCheck {
    const char* name;
    std::string (*run)();
};
// All of the above, in order, by the names the tests are registered with.
const std::vector<NamedCheck>& all_checks();

}  // namespace dp::gpu_checks
