#pragma once

// What every op family of OneDnnBackend builds its plans from: a oneDNN
// primitive with its memory objects bound once (Step), and the descriptors
// of the PyTorch layouts. Private to engine/backend/onednn/.

#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include <dnnl.hpp>

namespace dp::onednn {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

// Executes through oneDNN's C API with an argument list built once: the C++
// API's execute builds a vector and a map on every call.
void execute(const dnnl::primitive& primitive, dnnl::stream& stream,
             std::span<const dnnl_exec_arg_t> args);

// The caller's buffers of one call: (oneDNN argument, pointer) pairs.
using Handles = std::initializer_list<std::pair<int, const void*>>;

// One oneDNN primitive with its memory objects bound once. A call only swaps
// the data handles, so executing it builds nothing.
struct Step {
    // An argument the primitive wants in a layout of its own (the blocked
    // layouts of the jit convolutions): the caller's buffer is reordered into
    // the backend's scratch area before the primitive runs (inputs) or back
    // from it after (outputs).
    struct Conversion {
        int arg;
        memory user, internal;
        dnnl::reorder reorder;
        std::array<dnnl_exec_arg_t, 2> reorder_args;
        bool output;
        std::size_t scratch_offset;
    };

    Step(dnnl::primitive primitive) : primitive(std::move(primitive)) {}

    dnnl::primitive primitive;
    std::unordered_map<int, memory> args;
    std::vector<dnnl_exec_arg_t> exec_args;  // `args` as the C API takes them
    std::vector<Conversion> conversions;
    std::size_t scratch_bytes = 0;  // what the conversions need, at most

    // Binds the handles and runs the conversions and the primitive; `scratch`
    // holds at least scratch_bytes when there are conversions.
    void run(dnnl::stream& stream, Handles handles, std::byte* scratch = nullptr);

    // Adds an argument whose data handle each run sets.
    void bind(int arg, const memory::desc& desc, const dnnl::engine& engine) {
        add(arg, memory(desc, engine, DNNL_MEMORY_NONE));
    }

    // Adds an argument with memory of its own, which runs never change.
    void bind_owned(int arg, const memory::desc& desc, const dnnl::engine& engine) {
        add(arg, memory(desc, engine));
    }

    // Adds an argument given in layout `user` that the primitive wants in
    // layout `internal`: bound directly when they agree, else converted.
    void bind_converted(int arg, const memory::desc& user, const memory::desc& internal,
                        bool output, const dnnl::engine& engine);

private:
    void add(int arg, memory bound) {
        exec_args.push_back({arg, bound.get()});
        args.emplace(arg, std::move(bound));
    }
};

// A step with every argument bound as given (no conversions).
Step make_step(dnnl::primitive primitive, const dnnl::engine& engine,
               std::initializer_list<std::pair<int, memory::desc>> args);

inline memory::desc nchw(int n, int c, int h, int w) { return {{n, c, h, w}, f32, tag::nchw}; }
inline memory::desc vec(int n) { return {{n}, f32, tag::a}; }

}  // namespace dp::onednn
