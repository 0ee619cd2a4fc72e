#include "backend/onednn/onednn_step.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace dp::onednn {

void execute(const dnnl::primitive& primitive, dnnl::stream& stream,
             std::span<const dnnl_exec_arg_t> args) {
    const dnnl_status_t status =
        dnnl_primitive_execute(primitive.get(), stream.get(), int(args.size()), args.data());
    if (status != dnnl_success)
        throw Error("oneDNN failed to execute a primitive (status " + std::to_string(int(status)) +
                    ")");
}

void Step::run(dnnl::stream& stream, Handles handles, std::byte* scratch) {
    for (const auto& [arg, pointer] : handles) {
        auto conversion = std::find_if(conversions.begin(), conversions.end(),
                                       // init-capture: clang 14 (the fuzz build) cannot capture a binding
                                       [key = arg](const Conversion& c) { return c.arg == key; });
        memory& bound = conversion == conversions.end() ? args.at(arg) : conversion->user;
        bound.set_data_handle(const_cast<void*>(pointer));
    }
    for (Conversion& c : conversions) {
        c.internal.set_data_handle(scratch + c.scratch_offset);
        if (!c.output) execute(c.reorder, stream, c.reorder_args);
    }
    execute(primitive, stream, exec_args);
    for (Conversion& c : conversions)
        if (c.output) execute(c.reorder, stream, c.reorder_args);
}

void Step::bind_converted(int arg, const memory::desc& user, const memory::desc& internal,
                          bool output, const dnnl::engine& engine) {
    bind(arg, internal, engine);
    if (user == internal) return;
    memory user_memory(user, engine, DNNL_MEMORY_NONE);
    const memory& internal_memory = args.at(arg);
    const memory& from = output ? internal_memory : user_memory;
    const memory& to = output ? user_memory : internal_memory;
    // 64-byte aligned slices, as oneDNN's own allocations are.
    conversions.push_back({arg, user_memory, internal_memory, dnnl::reorder(from, to),
                           {{{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}}}, output,
                           scratch_bytes});
    scratch_bytes += (internal.get_size() + 63) / 64 * 64;
}

Step make_step(dnnl::primitive primitive, const dnnl::engine& engine,
               std::initializer_list<std::pair<int, memory::desc>> args) {
    Step step{std::move(primitive)};
    for (const auto& [arg, desc] : args) step.bind(arg, desc, engine);
    return step;
}

}  // namespace dp::onednn
