#include "cli/cli_options.h"

#include <charconv>
#include <cstdio>
#include <functional>
#include <map>

#include "core/error.h"
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

using Setter = std::function<void(TrainConfig&, const std::string& flag, const std::string& value)>;

const std::map<std::string, Setter>& value_flags() {
    static const std::map<std::string, Setter> flags{
        {"--model", [](TrainConfig& c, auto&, auto& v) { c.model = v; }},
        {"--batch-size", [](TrainConfig& c, auto& f, auto& v) { c.batch_size = parse_number<int>(f, v); }},
        {"--lr", [](TrainConfig& c, auto& f, auto& v) { c.lr = parse_number<float>(f, v); }},
        {"--epochs", [](TrainConfig& c, auto& f, auto& v) { c.epochs = parse_number<int>(f, v); }},
        {"--seed", [](TrainConfig& c, auto& f, auto& v) { c.seed = parse_number<std::uint64_t>(f, v); }},
        {"--data-dir", [](TrainConfig& c, auto&, auto& v) { c.data_dir = v; }},
        {"--limit-train", [](TrainConfig& c, auto& f, auto& v) { c.limit_train = parse_number<int>(f, v); }},
        {"--limit-test", [](TrainConfig& c, auto& f, auto& v) { c.limit_test = parse_number<int>(f, v); }},
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
        if (flag == "--no-shuffle") {
            command.config.shuffle = false;
            continue;
        }
        const auto setter = value_flags().find(flag);
        if (setter == value_flags().end())
            throw Error("unknown option '" + flag + "' (see dp-train --help)");
        if (!has_inline_value) {
            if (i + 1 == args.size()) throw Error(flag + " needs a value (see dp-train --help)");
            value = args[++i];
        }
        setter->second(command.config, flag, value);
    }
    validate(command.config);
    return command;
}

std::string cli_help() {
    const TrainConfig defaults;
    std::string models;
    for (const auto& info : model_registry())
        models += "  " + info.name + std::string(12 - std::min<std::size_t>(11, info.name.size()), ' ') +
                  info.description + "\n";
    char text[2048];
    std::snprintf(text, sizeof text,
                  "Usage: dp-train [options]\n"
                  "Trains a model on Fashion-MNIST and prints test accuracy and sec/epoch per epoch.\n"
                  "\n"
                  "Options:\n"
                  "  --model NAME        model to train (default %s)\n"
                  "  --batch-size N      global batch size (default %d)\n"
                  "  --lr X              SGD learning rate (default %g)\n"
                  "  --epochs N          epochs (default %d)\n"
                  "  --seed N            seed for initial weights and shuffling (default %llu)\n"
                  "  --data-dir DIR      folder with the four MNIST-format IDX files\n"
                  "                      (default $DP_DATA_DIR, else /usr/share/datasets/fashion-mnist)\n"
                  "  --limit-train N     train on the first N training images only\n"
                  "  --limit-test N      evaluate on the first N test images only\n"
                  "  --no-shuffle        visit training images in file order\n"
                  "  -h, --help          show this help\n"
                  "\n"
                  "Models:\n%s",
                  defaults.model.c_str(), defaults.batch_size, double(defaults.lr), defaults.epochs,
                  static_cast<unsigned long long>(defaults.seed), models.c_str());
    return text;
}

}  // namespace dp
