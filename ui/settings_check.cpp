#include "settings_check.h"

#include <QCoreApplication>
#include <QDir>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "core/checked_math.h"
#include "core/error.h"
#include "dataset_metadata.h"
#include "engine_message.h"
#include "models/model_info.h"
#include "config/config_fields.h"
#include "config/data_folder.h"

namespace {

using Kind = SettingsNote::Kind;

// The translation context of the messages below.
class SettingsCheck {
    Q_DECLARE_TR_FUNCTIONS(SettingsCheck)
};

QString nativePath(const std::filesystem::path& path)
{
    return QDir::toNativeSeparators(QString::fromStdString(path.string()));
}

// A number outside its field's range (dp::range_break, the rule dp::validate
// holds to), quoting the number as the panel shows it.
std::optional<SettingsNote> rangeProblem(const dp::ConfigField& field, const dp::TrainConfig& config,
                                         const std::map<std::string, QString>& shownValues)
{
    const dp::RangeBreak broken = dp::range_break(field, config);
    if (broken == dp::RangeBreak::none)
        return std::nullopt;
    // The bound as the fields take it (DecimalSpinBox): "0.01" in every locale.
    const QString minimum = QString::number(field.min, 'g', QLocale::FloatingPointShortest);
    const QString bound = broken == dp::RangeBreak::not_finite ? SettingsCheck::tr("must be a number")
                        : field.min_exclusive ? SettingsCheck::tr("must be more than %1").arg(minimum)
                        : field.min == 0      ? SettingsCheck::tr("must be 0 or more")
                                              : SettingsCheck::tr("must be at least %1").arg(minimum);
    const auto shown = shownValues.find(field.name);
    const QString typed = shown != shownValues.end() ? shown->second
                                                     : QString::fromStdString(dp::field_text(field, config));
    return SettingsNote{Kind::problem, field.name,
                        SettingsCheck::tr("%1 %2, not %3.").arg(settingLabel(field.name), bound, typed)};
}

// An engine message as a sentence of the panel.
QString sentence(QString text)
{
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    if (!text.endsWith(QLatin1Char('.')))
        text += QLatin1Char('.');
    return text;
}

// The problem of one field on its own: its range in the panel's words, any
// other (an unknown model, a seed too large to record) in the engine's.
std::optional<SettingsNote> fieldProblem(const dp::ConfigField& field, const dp::TrainConfig& config,
                                         const std::map<std::string, QString>& shownValues)
{
    if (auto range = rangeProblem(field, config, shownValues))
        return range;
    if (const auto problem = dp::setting_problem(field, config))
        return SettingsNote{Kind::problem, field.name, sentence(engineMessage(*problem))};
    return std::nullopt;
}

// The engine's validation finds the rest (settings that exclude each other,
// devices of two kinds, outputs that would replace a file), and says which
// field it is about.
std::optional<SettingsNote> validationProblem(const dp::TrainConfig& config,
                                              const std::vector<dp::DeviceInfo>& devices)
{
    try {
        dp::validate(config, devices);
    } catch (const dp::SettingError& error) {
        return SettingsNote{Kind::problem, error.setting(), sentence(engineMessage(error.what()))};
    } catch (const dp::Error& error) {
        return SettingsNote{Kind::problem, {}, sentence(engineMessage(error.what()))};
    }
    return std::nullopt;
}

// An empty device list means none checked here (to the engine it means
// every device); the one-kind rule is the engine's, worded for the list's
// own choices.
std::optional<SettingsNote> deviceProblem(const std::vector<dp::DeviceInfo>& devices)
{
    if (devices.empty())
        return SettingsNote{Kind::problem, "devices", SettingsCheck::tr("Check at least one device.")};
    if (!dp::device_kinds_problem(devices).empty())
        return SettingsNote{Kind::problem, "devices",
                            SettingsCheck::tr("A run trains on GPUs or on CPU cores, not both: "
                                              "choose All GPUs or All CPU cores.")};
    return std::nullopt;
}

// "a, b or c"
QString oneOf(const std::vector<std::string>& names)
{
    QString text;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0)
            text += i + 1 == names.size() ? SettingsCheck::tr(" or ") : QStringLiteral(", ");
        text += QString::fromStdString(names[i]);
    }
    return text;
}

// The image sets' folder must hold the four IDX files before Start, not
// fail to load after it (dp::data_folder_problem).
std::optional<SettingsNote> dataFolderProblem(const dp::TrainConfig& config)
{
    using Kind = dp::DataFolderProblem::Kind;
    const dp::DataFolderProblem problem = dp::data_folder_problem(config);
    const QString folder = nativePath(problem.folder);
    QString text;
    switch (problem.kind) {
    case Kind::none:
        return std::nullopt;
    case Kind::no_folder:
        text = SettingsCheck::tr("Choose the folder that holds the four MNIST-format "
                                 "files: train and t10k images and labels.");
        break;
    case Kind::not_installed:
        text = SettingsCheck::tr("Fashion-MNIST is not installed in %1: install the "
                                 "dataset-fashion-mnist package, or choose a folder that "
                                 "holds its four files.").arg(folder);
        break;
    case Kind::no_such_folder:
        text = SettingsCheck::tr("There is no folder %1.").arg(folder);
        break;
    case Kind::not_a_folder:
        text = SettingsCheck::tr("%1 is a file, not a folder.").arg(folder);
        break;
    case Kind::no_files:
        text = SettingsCheck::tr("This folder holds none of the four MNIST-format files "
                                 "(train and t10k images and labels, .gz or not).");
        break;
    case Kind::missing_files:
        text = SettingsCheck::tr("This folder has no %1 (.gz or not).").arg(oneOf(problem.missing));
        break;
    }
    return SettingsNote{SettingsNote::Kind::problem, "data_dir", text};
}

// Models that sit at chance (loss 2.30, accuracy 0.10 on ten classes) until
// they have taken enough optimizer steps, whatever the batch size: d2l's
// LeNet, whose sigmoid activations pass back small gradients at first.
struct SlowStart {
    const char* model;
    int steps;  // a run of fewer steps shows little or no learning
};
// LeNet, measured with dp-train on Fashion-MNIST at the default learning
// rate 0.2, one device, seed 0 (test accuracy by step):
//   batch 32,  3,000 images (94 steps an epoch):  0.09 at 376 steps, 0.33 at 470, 0.64 at 564
//   batch 128, 6,000 images (47 steps an epoch):  0.11 at 329 steps, 0.38 at 376, 0.62 at 470
//   batch 256, 3,000 images (12 steps an epoch):  0.11 after all 120 steps (10 epochs)
// The plateau lasts 330 to 470 steps, and accuracy passes 0.6 by about 550;
// 1,000 steps leave the learning room to show (0.72 to 0.79 at 660 and 1,410
// steps in the same runs). Larger learning rates shorten the plateau (d2l
// trains this LeNet at 0.9), so the hint is a hint, not a refusal.
constexpr SlowStart kSlowStarts[] = {{"lenet", 1000}};

}  // namespace

int trainingImages(const dp::TrainConfig& config)
{
    const int setSize = config.dataset == "random" ? config.samples
                                                   : datasetMetadata(config.dataset).trainImages;
    return config.limit_train > 0 && config.dataset != "random"
               ? (setSize > 0 ? std::min(config.limit_train, setSize) : config.limit_train)
               : setSize;
}

namespace {

// The optimizer steps the run takes: batches per epoch (a batch above the
// training set is one batch of it, as the trainer does) times epochs; 0 when
// the training set's size is unknown (an MNIST-format folder read whole).
long long optimizerSteps(const dp::TrainConfig& config)
{
    const int images = trainingImages(config);
    if (images <= 0 || config.batch_size <= 0)
        return 0;
    const int batch = std::min(config.batch_size, images);
    return (long long)config.epochs * dp::ceil_div(images, batch);
}

std::optional<SettingsNote> tooFewStepsHint(const dp::TrainConfig& config)
{
    const auto slow = std::find_if(std::begin(kSlowStarts), std::end(kSlowStarts),
                                   [&](const SlowStart& rule) { return config.model == rule.model; });
    const long long steps = optimizerSteps(config);
    if (slow == std::end(kSlowStarts) || steps == 0 || steps >= slow->steps)
        return std::nullopt;
    const QLocale locale;
    return SettingsNote{
        Kind::hint, "batch_size",
        SettingsCheck::tr("%1 learns little in fewer than about %2 steps (its loss stays at "
                          "2.30 for the first few hundred); these settings make %3. Try a smaller "
                          "batch, more training samples or more epochs.")
            .arg(QString::fromStdString(dp::model_info(config.model).title),
                 locale.toString(slow->steps), locale.toString(steps))};
}

}  // namespace

std::vector<SettingsNote> checkRunSettings(const dp::TrainConfig& config,
                                          const std::vector<dp::DeviceInfo>& devices,
                                          const std::map<std::string, QString>& shownValues)
{
    std::vector<SettingsNote> notes;
    const auto add = [&](std::optional<SettingsNote> note) {
        if (note)
            notes.push_back(std::move(*note));
    };
    for (const dp::ConfigField& field : dp::config_fields())
        add(fieldProblem(field, config, shownValues));
    add(dataFolderProblem(config));
    add(deviceProblem(devices));
    if (!notes.empty())
        return notes;
    if (auto problem = validationProblem(config, devices))
        return {std::move(*problem)};
    add(tooFewStepsHint(config));
    return notes;
}
