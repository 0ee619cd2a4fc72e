// A straggler (--slow-device, config/slow_devices.h): the setting's refusals,
// the wait in every strategy's step (recorded as straggler_wait, the others
// waiting at the all-reduce), the same parameters as without it, the run
// record keeping it, the comparability rule, the gap's part and the
// predictor's term.
#include <QtTest>

#include <filesystem>
#include <span>

#include "config/config_fields.h"
#include "config/slow_devices.h"
#include "config/train_config.h"
#include "core/error.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "record/run_record.h"
#include "record/run_record_json.h"
#include "scaling/scaling_comparison.h"
#include "scaling/scaling_predictor.h"
#include "scaling/speedup_gap.h"
#include "train/replica_group.h"

namespace {

// DP_CPU_DEVICES gives 2 CPU devices on any machine.
class TwoCpuDevices {
public:
    TwoCpuDevices() { qputenv("DP_CPU_DEVICES", "2"); }
    ~TwoCpuDevices() { qunsetenv("DP_CPU_DEVICES"); }
};

dp::TrainConfig lenet_on_two(const std::string& allreduce, std::vector<std::string> slow_devices) {
    dp::TrainConfig config;
    config.batch_size = 64;
    config.devices = {"cpu:0", "cpu:1"};
    config.allreduce = dp::parse_all_reduce_strategy(allreduce);
    config.bucket_mb = 0.1;  // several buckets, so a straggler holds some back
    config.slow_devices = std::move(slow_devices);
    return config;
}

// The setting's problem, as validate_setting words it; empty if none.
std::string problem_of(std::vector<std::string> entries) {
    dp::TrainConfig config;
    config.slow_devices = std::move(entries);
    return dp::setting_problem(dp::config_field("slow_devices"), config).value_or("");
}

// A run's summary of `steps` steps whose devices computed `compute` seconds
// a step each; `waits[d]` is device d's straggler wait and `allreduce[d]`
// its all-reduce wait, per step; one epoch of exactly the steps' time.
dp::RunSummary summary_of(int steps, double compute, const std::vector<double>& waits,
                          const std::vector<double>& allreduce) {
    dp::RunSummary run;
    run.steps = steps;
    double step_seconds = 0;
    for (std::size_t d = 0; d < waits.size(); ++d) {
        run.devices.push_back("cpu:" + std::to_string(d));
        dp::DeviceStepTiming total;
        total.shard = 64 * steps / int(waits.size());
        total.forward = compute / 2 * steps;
        total.backward = compute / 2 * steps;
        total.straggler_wait = waits[d] * steps;
        total.allreduce = allreduce[d] * steps;
        run.step_totals.push_back(total);
        step_seconds = std::max(step_seconds, compute + waits[d] + allreduce[d]);
    }
    dp::EpochMetrics epoch;
    epoch.epoch = 1;
    epoch.seconds = step_seconds * steps;
    run.epochs = {epoch};
    return run;
}

}  // namespace

class TestStraggler : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        data_ = dp::load_mnist_format(dp::default_fashion_mnist_dir(), 64 * 6, 64);
    }

    void refusesBadEntries_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("problem");
        QTest::newRow("no factor") << "cpu:1" << "'cpu:1': no '=' before a factor";
        QTest::newRow("no device") << "=1.5" << "no device before '='";
        QTest::newRow("not a number") << "cpu:1=fast" << "'fast' is not a number";
        QTest::newRow("below 1") << "cpu:1=0.5" << "the factor must be from 1 to 100 (got 0.5)";
        QTest::newRow("above 100") << "cpu:1=1e9" << "the factor must be from 1 to 100";
        QTest::newRow("nan") << "cpu:1=nan" << "the factor must be from 1 to 100";
    }
    void refusesBadEntries() {
        QFETCH(QString, entry);
        QFETCH(QString, problem);
        const std::string message = problem_of({entry.toStdString()});
        QVERIFY2(message.find(problem.toStdString()) != std::string::npos, message.c_str());
        // One line, naming the setting and how to write it.
        QVERIFY2(message.starts_with("{slow_devices}"), message.c_str());
        QVERIFY2(message.find("e.g. cpu:1=1.5") != std::string::npos, message.c_str());
        QVERIFY(message.find('\n') == std::string::npos);
    }

    void refusesADeviceTwiceAndOneTheRunLacks() {
        const std::string twice = problem_of({"cpu:1=1.5", "cpu:1=2"});
        QVERIFY2(twice.find("cpu:1 is named twice") != std::string::npos, twice.c_str());
        QVERIFY(problem_of({"cpu:1=1.5", "cpu:0=2"}).empty());

        const TwoCpuDevices two;
        dp::TrainConfig config;
        config.devices = {"cpu:0", "cpu:1"};
        config.slow_devices = {"cpu:2=1.5"};
        try {
            dp::validate(config);
            QFAIL("a slow device the run lacks was taken");
        } catch (const dp::SettingError& error) {
            QCOMPARE(error.setting(), std::string("slow_devices"));
            const std::string message = error.what();
            QVERIFY2(message.find("names cpu:2, which this run does not train on (its devices: "
                                  "cpu:0, cpu:1)") != std::string::npos,
                     message.c_str());
        }
        config.slow_devices = {"cpu:1=1.5"};
        dp::validate(config);
    }

    void parsesFactorsAndKeepsARunsOwn() {
        const std::vector<std::string> entries{"cpu:1=1.5", "cpu:0#1=2"};
        QCOMPARE(dp::slowdown_of(entries, "cpu:1"), 1.5);
        QCOMPARE(dp::slowdown_of(entries, "cpu:0#1"), 2.0);
        QCOMPARE(dp::slowdown_of(entries, "cpu:0"), 1.0);
        QCOMPARE(dp::slow_devices_among(entries, {"cpu:0", "cpu:1"}), std::vector<std::string>{"cpu:1=1.5"});
        QCOMPARE(dp::slow_devices_text(entries), std::string("cpu:1 1.5x slower, cpu:0#1 2x slower"));
    }

    // A 4x straggler's wait is 3 times its own compute (forward + backward)
    // each step, in every strategy, and only it has one; the other device
    // waits for it at the all-reduce (DataParallel: in the output gather or
    // the gradient sum). Bounds are generous: sleeping never returns early,
    // but a busy machine may wake it late; 4x rather than 2x so that the
    // other device's wait stands well above what a busy machine's
    // scheduling takes from it (a 2x wait failed that check once under load).
    void theSlowDeviceWaitsItsComputeAgain_data() {
        QTest::addColumn<QString>("allreduce");
        for (const char* strategy : {"ring", "naive", "dataparallel"}) QTest::newRow(strategy) << strategy;
    }
    void theSlowDeviceWaitsItsComputeAgain() {
        QFETCH(QString, allreduce);
        const TwoCpuDevices two;
        const dp::TrainConfig config = lenet_on_two(allreduce.toStdString(), {"cpu:1=4"});
        dp::ReplicaGroup group(dp::select_devices(config.devices), config, {1, 28, 28}, 10);
        dp::EpochSampler in_file_order(data_.train.count, 0, false);
        dp::DeviceStepTiming fast, slow;
        for (int step = 0; step < 4; ++step) {
            dp::Backend::LossResult loss;
            const auto batch = in_file_order.order(0).subspan(std::size_t(step) * 64, 64);
            const auto timings = group.train_step(data_.train, batch, config.lr, loss);
            if (step == 0) continue;  // the first step's kernels are chosen and caches cold
            fast += timings[0];
            slow += timings[1];
        }
        const double compute = 3 * (slow.forward + slow.backward);  // (4 - 1) times its own
        QCOMPARE(fast.straggler_wait, 0.0);
        QVERIFY2(slow.straggler_wait >= 0.99 * compute,
                 qPrintable(QString("wait %1 s, 3x compute %2 s").arg(slow.straggler_wait).arg(compute)));
        QVERIFY2(slow.straggler_wait <= 1.25 * compute + 0.3,
                 qPrintable(QString("wait %1 s, 3x compute %2 s").arg(slow.straggler_wait).arg(compute)));
        const double fast_waits = fast.allreduce + fast.gather;
        QVERIFY2(fast_waits >= 0.5 * slow.straggler_wait,
                 qPrintable(QString("the other waited %1 s for a %2 s wait").arg(fast_waits).arg(slow.straggler_wait)));
    }

    // A straggler only adds time: the same parameters, bit for bit, as the
    // same steps without it, in every strategy.
    void theSameParametersAsWithoutIt_data() { theSlowDeviceWaitsItsComputeAgain_data(); }
    void theSameParametersAsWithoutIt() {
        QFETCH(QString, allreduce);
        const TwoCpuDevices two;
        std::vector<float> parameters[2];
        for (int slowed = 0; slowed < 2; ++slowed) {
            const dp::TrainConfig config = lenet_on_two(
                allreduce.toStdString(),
                slowed ? std::vector<std::string>{"cpu:0=1.5", "cpu:1=1.2"} : std::vector<std::string>{});
            dp::ReplicaGroup group(dp::select_devices(config.devices), config, {1, 28, 28}, 10);
            dp::EpochSampler in_file_order(data_.train.count, 0, false);
            for (int step = 0; step < 3; ++step) {
                dp::Backend::LossResult loss;
                group.train_step(data_.train, in_file_order.order(0).subspan(std::size_t(step) * 64, 64),
                                 config.lr, loss);
            }
            parameters[slowed] = group.parameters(1);
            QCOMPARE(group.parameters(0), parameters[slowed]);
        }
        QVERIFY(parameters[0] == parameters[1]);
    }

    void theRecordKeepsIt() {
        dp::TrainConfig config = lenet_on_two("ring", {"cpu:1=1.5"});
        dp::RunRecord record = dp::start_run_record(config, "dp-train");
        record.steps = 2;
        record.step_totals = {{.shard = 64, .allreduce = 0.3}, {.shard = 64, .allreduce = 0.01}};
        record.step_totals[1].straggler_wait = 0.25;
        const dp::RunRecord read = dp::run_record_from_json(dp::to_json(record));
        QCOMPARE(read.config.slow_devices, std::vector<std::string>{"cpu:1=1.5"});
        QCOMPARE(read.step_totals[1].straggler_wait, 0.25);
        QCOMPARE(read.step_totals[0].straggler_wait, 0.0);
        QVERIFY2(read.settings_label().ends_with(" · straggler cpu:1 1.5×"), read.settings_label().c_str());
        // A record from before the setting reads as none.
        std::string json = dp::to_json(dp::start_run_record(lenet_on_two("ring", {}), "dp-train"));
        QVERIFY(json.find("\"slow_devices\": []") != std::string::npos);
        json.replace(json.find("\"slow_devices\": [],"), std::string("\"slow_devices\": [],").size(), "");
        QVERIFY(dp::run_record_from_json(json).config.slow_devices.empty());
    }

    // A speedup is never over a run with another straggler on a device both
    // ran on; a slow device the baseline lacks leaves it fair.
    void comparesOnlyWithTheSameStraggler() {
        dp::TrainConfig one = lenet_on_two("ring", {});
        one.devices = {"cpu:0"};
        const dp::TrainConfig straggling = lenet_on_two("ring", {"cpu:1=1.5"});
        QCOMPARE(dp::baseline_mismatch(one, straggling), std::string());
        const dp::TrainConfig slow_zero = lenet_on_two("ring", {"cpu:0=1.5"});
        QCOMPARE(dp::baseline_mismatch(one, slow_zero),
                 std::string("straggler: none there, cpu:0 1.5x slower here"));
        dp::TrainConfig slowed_one = one;
        slowed_one.slow_devices = {"cpu:0=1.50"};
        QCOMPARE(dp::baseline_mismatch(slowed_one, slow_zero), std::string());
        QCOMPARE(dp::baseline_mismatch(slowed_one, lenet_on_two("ring", {})),
                 std::string("straggler: cpu:0 1.5x slower there, none here"));
    }

    // --compare 1,2 --slow-device cpu:1=1.5: the 1-device run has no cpu:1
    // and runs unslowed; a slow device no run has is refused.
    void aComparisonSlowsTheRunsThatHaveTheDevice() {
        const TwoCpuDevices two;
        dp::TrainConfig base = lenet_on_two("ring", {"cpu:1=1.5"});
        const auto devices = dp::select_devices(base.devices);
        const auto configs = dp::comparison_configs(base, devices, {1, 2}, false);
        QVERIFY(configs[0].slow_devices.empty());
        QCOMPARE(configs[1].slow_devices, std::vector<std::string>{"cpu:1=1.5"});
        QCOMPARE(dp::baseline_mismatch(configs[0], configs[1]), std::string());
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::comparison_configs(base, devices, {1}, false));
    }

    // The gap's "waiting for the slowest device" is the measured wait: the
    // straggler's own and the others' beyond the least.
    void theGapWaitsForTheSlowestDevice() {
        const dp::RunSummary one = summary_of(10, 0.08, {0}, {0});
        // 2 devices, each computing 0.04 s; cpu:1 waits 0.04 s more, cpu:0 waits for it.
        const dp::RunSummary many = summary_of(20, 0.04, {0, 0.04}, {0.041, 0.001});
        dp::SpeedupGap gap = dp::speedup_gap(one, many);
        dp::TrainConfig one_config = lenet_on_two("ring", {}), many_config = lenet_on_two("ring", {"cpu:1=2"});
        one_config.devices = {"cpu:0"};
        dp::fit_gap_to_settings(gap, one_config, many_config);
        const auto part = std::find_if(gap.parts.begin(), gap.parts.end(),
                                       [](const dp::GapPart& p) { return p.short_name == "slowest device"; });
        QVERIFY(part != gap.parts.end());
        QCOMPARE(part->name, std::string("waiting for the slowest device"));
        // Per epoch of 20 steps: (0.041 - 0.001) / 2 + 0.04 / 2 = 0.04 s a step.
        QVERIFY2(std::abs(part->seconds - 20 * 0.04) < 1e-9, qPrintable(QString::number(part->seconds)));
        QVERIFY2(part->advice.find("{slow_devices} cpu:1 2x slower") != std::string::npos, part->advice.c_str());
        QVERIFY(gap.share(*part) > 0.5);  // most of this gap
    }

    // The predictor's straggler term: on 2 or more devices a step's compute
    // is its slowest device's, factor x the others'; 1 device has none.
    void thePredictorAddsTheStragglersWait() {
        QCOMPARE(dp::straggler_wait_seconds(1.5, 0.2, 2), 0.1);
        QCOMPARE(dp::straggler_wait_seconds(1.5, 0.2, 1), 0.0);
        QCOMPARE(dp::straggler_wait_seconds(1.0, 0.2, 4), 0.0);
        dp::WorkloadProfile profile;
        profile.samples_per_epoch = 1000;
        profile.global_batch = 100;
        profile.compute_per_sample = 0.4e-3;
        profile.update_per_step = 5e-3;
        profile.gradient_bytes = 516e3;
        dp::PredictionSettings settings;
        settings.link = dp::link_presets().front();
        const auto plain = dp::predict(profile, settings, {1, 2, 4});
        profile.straggler = 1.5;
        const auto slowed = dp::predict(profile, settings, {1, 2, 4});
        QCOMPARE(slowed[0].seconds_per_epoch, plain[0].seconds_per_epoch);
        QCOMPARE(slowed[0].straggler_wait, 0.0);
        for (std::size_t i = 1; i < slowed.size(); ++i) {
            QCOMPARE(slowed[i].straggler_wait, 0.5 * slowed[i].compute);
            QVERIFY(std::abs(slowed[i].seconds_per_epoch - plain[i].seconds_per_epoch -
                             0.5 * plain[i].compute) < 1e-12);
            QVERIFY(slowed[i].speedup < plain[i].speedup);
        }
    }

private:
    dp::TrainTestSets data_;
};

QTEST_GUILESS_MAIN(TestStraggler)
#include "test_straggler.moc"
