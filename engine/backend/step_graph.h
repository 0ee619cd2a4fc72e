#pragma once

// CUDA Graphs for the training step (issue 40, item 7): what a captured step
// depends on besides the contents of device memory (its key), and the choice
// between running a step eagerly, capturing it or replaying its graph. Host
// logic only, so that every machine tests it (tests/gpu/test_cuda_host_logic);
// the capture itself is CudaBackend's (cuda/cuda_step_graphs.cpp), switched
// on by DP_CUDA_GRAPHS=1 (cuda_backend_options.h).
//
// A graph replays the kernels, their arguments and the device addresses of
// the step it captured, not the host code that enqueued them. A replay is
// right exactly when the step would enqueue the same work again: the same
// shapes (rows; the last partial batch has a graph of its own), the same
// buffers, and the same values of the arguments the host passes by value
// (the loss's grad scale 1 / global batch, lr, weight decay, dropout's step).
// Everything else a step reads must be in device memory at fixed addresses.
//
// What a step must be to be captured (StepGraphRequest::capturable): it
// enqueues work on the backend's stream and nothing else: no host read of a
// device value (the loss and accuracy summed on the device, read once an
// epoch), no upload from host memory (the data set resident on the device,
// the batch gathered there by index), no allocation after the warm-up step,
// no host wait (one replica, or collectives that are graph nodes: NCCL's,
// not the communication thread's), and enqueueing it twice is harmless on
// the host (a failed capture runs it again eagerly). Replica::train_step is
// such a step with one replica in the run: it stages the batch's indices at
// a fixed address, notes its phase laps on the host before the work (the
// work only marks them: CUDA's marks become event nodes of the graph), and
// wraps its device work (gather by index, forward, loss into device sums,
// backward, update) in one run_step; the loss sums are read between steps
// (every 50 and at the epoch's end). train/step_graph_request.h builds its key and says when it
// cannot be captured: more than one replica (the all-reduce is host-driven:
// the threads' ring, one GPU's device copies, MPI, NCCL's polled waits; NCCL
// collectives as graph nodes would lift this for one process's GPUs), a
// straggler, dropout, a batch gathered on the host (DP_CUDA_STEP_SYNC=1);
// the per-op timer refuses the steps it times. DataParallel's step never
// asks. dp-gpu-selftest's step_graphs check captures dp-train's own step
// (selftest/step_graph_check.cpp).

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace dp {

struct StepGraphKey {
    int rows = 0;               // this replica's rows: every op's shape
    int global_batch = 0;       // the loss's grad scale, 1 / global batch
    int micro_batches = 1;
    std::uint32_t lr_bits = 0;  // the float bits: a replay must not round them
    std::uint32_t weight_decay_bits = 0;
    // Dropout's step counter, a kernel argument (0 for a model without
    // dropout): with dropout no key repeats, so no step is ever captured.
    std::uint64_t dropout_step = 0;
    // The device addresses the step reads and writes, in the order the caller
    // lists them (input, labels, output gradients, parameters, gradients; a
    // model's activations stay where build() put them), the rest null. An
    // array, so that making a key allocates nothing.
    std::array<const void*, 8> buffers{};
    bool operator==(const StepGraphKey&) const = default;
};

// The float's bits, for the key's by-value arguments.
inline std::uint32_t float_bits(float value) { return std::bit_cast<std::uint32_t>(value); }

// A step's work as a callable the backend calls once (eagerly or under
// capture), none (a replay) or twice (a capture that failed, then eagerly): a
// reference to the caller's lambda, since a std::function holding its
// captures would allocate, and a step allocates nothing.
class StepWork {
public:
    template <typename F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, StepWork>)
    StepWork(F& work)  // NOLINT: implicit, as a function reference
        : work_(&work), call_([](void* w) { (*static_cast<F*>(w))(); }) {}
    void operator()() const { call_(work_); }

private:
    void* work_;
    void (*call_)(void*);
};

enum class StepGraphAction {
    eager,     // run the step as it is (graphs off, not capturable, or capture failed)
    warm_up,   // run it eagerly and remember the key: its second step captures
    capture,   // capture this step into a graph, then launch the graph
    replay,    // launch the key's graph
};
inline const char* step_graph_action_name(StepGraphAction action) {
    switch (action) {
        case StepGraphAction::eager: return "eager";
        case StepGraphAction::warm_up: return "warm-up";
        case StepGraphAction::capture: return "capture";
        case StepGraphAction::replay: return "replay";
    }
    return "?";
}

struct StepGraphRequest {
    StepGraphKey key;
    bool capturable = false;  // see the file's comment
};

// The graphs a backend holds and the keys it has seen, and the decision for
// each step. At most `capacity` graphs (2: the full batch and the last
// partial one); a key met after that runs eagerly, as does a key whose
// capture failed once (the fallback is per key, for the rest of the run).
// The first step of a key warms up eagerly: cuDNN chooses its algorithms and
// the arena grows in it, which a capture must not see.
class StepGraphBook {
public:
    explicit StepGraphBook(bool enabled, std::size_t capacity = 2)
        : enabled_(enabled), capacity_(capacity) {}

    bool enabled() const { return enabled_; }

    // What to do with this step; for `replay`, graph_index() says which graph.
    StepGraphAction decide(const StepGraphRequest& request) {
        if (!enabled_ || !request.capturable || contains(failed_, request.key))
            return StepGraphAction::eager;
        const auto graph = std::find(graphs_.begin(), graphs_.end(), request.key);
        if (graph != graphs_.end()) {
            graph_index_ = std::size_t(graph - graphs_.begin());
            return StepGraphAction::replay;
        }
        const auto seen = std::find(warmed_.begin(), warmed_.end(), request.key);
        if (seen == warmed_.end()) {
            // Keys that never repeat (a learning-rate warm-up, dropout)
            // pass through here: only the newest few are remembered.
            if (warmed_.size() == kRememberedKeys) warmed_.erase(warmed_.begin());
            warmed_.push_back(request.key);
            return StepGraphAction::warm_up;
        }
        if (graphs_.size() >= capacity_) return StepGraphAction::eager;
        graph_index_ = graphs_.size();
        return StepGraphAction::capture;
    }
    // The graph of the last decide()'s key (replay), or the slot a capture fills.
    std::size_t graph_index() const { return graph_index_; }
    // After a `capture`: it made graph graph_index() (true), or it failed
    // and the key runs eagerly from now on (false).
    void captured(const StepGraphKey& key, bool succeeded) {
        std::erase(warmed_, key);
        if (succeeded)
            graphs_.push_back(key);
        else
            failed_.push_back(key);
    }

    std::size_t graphs() const { return graphs_.size(); }

private:
    static constexpr std::size_t kRememberedKeys = 8;
    static bool contains(const std::vector<StepGraphKey>& keys, const StepGraphKey& key) {
        return std::find(keys.begin(), keys.end(), key) != keys.end();
    }

    bool enabled_;
    std::size_t capacity_;
    std::vector<StepGraphKey> graphs_;     // slot i holds graph i's key
    std::vector<StepGraphKey> warmed_;     // keys seen once, the newest last
    std::vector<StepGraphKey> failed_;     // keys whose capture failed
    std::size_t graph_index_ = 0;
};

}  // namespace dp
