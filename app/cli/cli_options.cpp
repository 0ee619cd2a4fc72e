#include "cli/cli_options.h"

#include <charconv>
#include <cstdio>
#include <functional>
#include <map>

#include "core/error.h"
#include "devices/device.h"
#include "models/model_registry.h"

namespace dp {
namespace {

template <typename Number>
Number parse_number(const std::string& flag, const std::string& text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
        throw Error(flag + ": '" + text + "' is not a valid number");
    return value;
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        items.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

using Setter = std::function<void(CliCommand&, const std::string& flag, const std::string& value)>;

const std::map<std::string, Setter>& value_flags() {
    static const std::map<std::string, Setter> flags{
        {"--model", [](CliCommand& c, auto&, auto& v) { c.config.model = v; }},
        {"--batch-size", [](CliCommand& c, auto& f, auto& v) { c.config.batch_size = parse_number<int>(f, v); }},
        {"--lr", [](CliCommand& c, auto& f, auto& v) { c.config.lr = parse_number<float>(f, v); }},
        {"--epochs", [](CliCommand& c, auto& f, auto& v) { c.config.epochs = parse_number<int>(f, v); }},
        {"--seed", [](CliCommand& c, auto& f, auto& v) { c.config.seed = parse_number<std::uint64_t>(f, v); }},
        {"--data-dir", [](CliCommand& c, auto&, auto& v) { c.config.data_dir = v; }},
        {"--dataset", [](CliCommand& c, auto&, auto& v) { c.config.dataset = v; }},
        {"--input-size", [](CliCommand& c, auto& f, auto& v) { c.config.input_size = parse_number<int>(f, v); }},
        {"--samples", [](CliCommand& c, auto& f, auto& v) { c.config.samples = parse_number<int>(f, v); }},
        {"--limit-train", [](CliCommand& c, auto& f, auto& v) { c.config.limit_train = parse_number<int>(f, v); }},
        {"--limit-test", [](CliCommand& c, auto& f, auto& v) { c.config.limit_test = parse_number<int>(f, v); }},
        {"--save", [](CliCommand& c, auto&, auto& v) { c.config.save_path = v; }},
        {"--load", [](CliCommand& c, auto&, auto& v) { c.config.load_path = v; }},
        {"--record", [](CliCommand& c, auto&, auto& v) { c.config.record_path = v; }},
        {"--devices", [](CliCommand& c, auto&, auto& v) { c.config.devices = split_list(v); }},
        {"--allreduce", [](CliCommand& c, auto&, auto& v) { c.config.allreduce = v; }},
        {"--bucket-mb", [](CliCommand& c, auto& f, auto& v) { c.config.bucket_mb = parse_number<double>(f, v); }},
        {"--compare", [](CliCommand& c, auto& f, auto& v) {
             c.action = CliCommand::Action::compare;
             c.compare_counts.clear();
             for (const auto& item : split_list(v)) c.compare_counts.push_back(parse_number<int>(f, item));
         }},
    };
    return flags;
}

const std::map<std::string, std::function<void(CliCommand&)>>& switch_flags() {
    static const std::map<std::string, std::function<void(CliCommand&)>> flags{
        {"--no-shuffle", [](CliCommand& c) { c.config.shuffle = false; }},
        {"--no-history", [](CliCommand& c) { c.history = false; }},
        {"--retune", [](CliCommand& c) { c.config.retune = true; }},
        {"--scale-lr", [](CliCommand& c) { c.scale_lr = true; }},
        {"--verbose", [](CliCommand& c) { c.verbose = true; }},
        {"--sync-bn", [](CliCommand& c) { c.config.sync_bn = true; }},
        {"--distributed", [](CliCommand& c) { c.distributed = true; }},
    };
    return flags;
}

}  // namespace

CliCommand parse_cli(const std::vector<std::string>& args) {
    CliCommand command;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i];
        std::string value;
        bool has_inline_value = false;
        if (const auto eq = flag.find('='); flag.starts_with("--") && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag.resize(eq);
            has_inline_value = true;
        }
        if (flag == "--help" || flag == "-h") {
            command.action = CliCommand::Action::help;
            return command;
        }
        if (flag == "--list-devices") {
            command.action = CliCommand::Action::list_devices;
            return command;
        }
        if (const auto toggle = switch_flags().find(flag); toggle != switch_flags().end()) {
            toggle->second(command);
            continue;
        }
        const auto setter = value_flags().find(flag);
        if (setter == value_flags().end())
            throw Error("unknown option '" + flag + "' (see dp-train --help)");
        if (!has_inline_value) {
            if (i + 1 == args.size()) throw Error(flag + " needs a value (see dp-train --help)");
            value = args[++i];
        }
        setter->second(command, flag, value);
    }
    if (command.scale_lr && command.action != CliCommand::Action::compare)
        throw Error("--scale-lr only applies to --compare");
    if (!command.config.record_path.empty() && command.action == CliCommand::Action::compare)
        throw Error("--record keeps one run; --compare makes several");
    if (command.distributed) {
#ifndef DP_HAVE_MPI
        throw Error("--distributed needs MPI: this dp-train was built without it "
                    "(install libopenmpi-dev and configure with -DDP_MPI=ON)");
#endif
        if (command.action == CliCommand::Action::compare)
            throw Error("--compare runs in one process; it does not combine with --distributed");
        if (!command.config.devices.empty())
            throw Error("--devices does not combine with --distributed: each rank takes the "
                        "device of its local rank");
        // Each rank's device is chosen once MPI says which rank it is; any
        // one device stands in for it here.
        TrainConfig one_device = command.config;
        one_device.devices = {available_devices().front().id};
        validate(one_device);
    } else {
        validate(command.config);
    }
    return command;
}

std::string cli_help() {
    const TrainConfig defaults;
    std::string models;
    for (const auto& info : model_registry()) {
        char line[256];
        std::snprintf(line, sizeof line, "  %-16s %10zu params  %s\n", info.name.c_str(),
                      info.parameters, info.description.c_str());
        models += line;
    }
    char text[4096];
    std::snprintf(text, sizeof text,
                  "Usage: dp-train [options]\n"
                  "Trains a model data-parallel and prints test accuracy and sec/epoch per epoch.\n"
                  "\n"
                  "Options:\n"
                  "  --model NAME        model to train (default %s)\n"
                  "  --batch-size N      global batch size (default %d)\n"
                  "  --lr X              SGD learning rate (default %g)\n"
                  "  --epochs N          epochs (default %d)\n"
                  "  --seed N            seed for initial weights and shuffling (default %llu)\n"
                  "  --dataset NAME      fashion-mnist (default), mnist-format (any folder of\n"
                  "                      MNIST-layout IDX files, with --data-dir) or random\n"
                  "                      (seed 004's: --input-size N features, --samples N, 2 classes)\n"
                  "  --data-dir DIR      folder with the four MNIST-format IDX files\n"
                  "                      (default $DP_DATA_DIR, else /usr/share/datasets/fashion-mnist)\n"
                  "  --limit-train N     train on the first N training images only\n"
                  "  --limit-test N      evaluate on the first N test images only\n"
                  "  --no-shuffle        visit training images in file order\n"
                  "  --save PATH         write a checkpoint (safetensors, PyTorch state_dict\n"
                  "                      names) after every epoch, atomically\n"
                  "  --load PATH         start from a checkpoint (from --save or PyTorch);\n"
                  "                      with --epochs 0, only evaluate it\n"
                  "  --record PATH       write the run record (JSON: config, status, every\n"
                  "                      epoch's metrics) after every epoch and at the end\n"
                  "  --no-history        do not keep the run in the workbench's history\n"
                  "                      (runs.sqlite in DP_WORKBENCH_DATA_DIR or the user's\n"
                  "                      data folder; dp-workbench shows it)\n"
                  "  --retune            measure the fastest kernels for this machine again\n"
                  "                      (they are measured once and kept in kernel-choices.tsv\n"
                  "                      beside the history, so repeated runs give the same bits)\n"
                  "\n"
                  "Data parallelism:\n"
                  "  --devices LIST      cpu:0,cpu:1, cpu:all, cuda:0,cuda:1 or cuda:all, one\n"
                  "                      kind per run (default: every GPU, else every CPU device)\n"
                  "  --list-devices      print this machine's devices and exit\n"
                  "  --allreduce NAME    ring (reduce-scatter + all-gather, default) or naive\n"
                  "                      (d2l's: sum on device 0, copy back)\n"
                  "  --bucket-mb X       gradient bucket size for the all-reduce (default %g)\n"
                  "  --sync-bn           BatchNorm statistics over the global batch, not per device\n"
                  "  --compare LIST      run on each device count in LIST (e.g. 1,2) and print\n"
                  "                      speedup and scaling efficiency\n"
                  "  --scale-lr          with --compare: scale batch and lr with the device count\n"
                  "  --verbose           print each device's step time breakdown per epoch\n"
                  "  --distributed       be one rank of an MPI job (mpirun -np N dp-train ...\n"
                  "                      --distributed): one device per rank, the global batch\n"
                  "                      split over every rank, rank 0 prints and saves\n"
                  "  -h, --help          show this help\n"
                  "\n"
                  "Models:\n%s",
                  defaults.model.c_str(), defaults.batch_size, double(defaults.lr), defaults.epochs,
                  static_cast<unsigned long long>(defaults.seed), defaults.bucket_mb,
                  models.c_str());
    return text;
}

}  // namespace dp
