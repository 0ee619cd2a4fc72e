// The what-if predictor (scaling/scaling_predictor.h): the alpha-beta fit on
// synthetic timings, the all-reduce formulas, core sharing, and the shape of
// its predictions. Nothing here depends on how fast this machine is.
#include <QtTest>

#include <cmath>

#include "core/error.h"
#include "parallel/allreduce_probe.h"
#include "scaling/prediction_band.h"
#include "scaling/prediction_table.h"
#include "scaling/scaling_predictor.h"

namespace {

dp::LinkModel preset(const std::string& name) {
    for (const dp::LinkModel& link : dp::link_presets())
        if (link.name == name) return link;
    throw std::runtime_error("no preset " + name);
}

dp::LinkModel threads(int cores) {
    dp::LinkModel link;
    link.name = "threads";
    link.alpha = 2e-6;
    link.beta = 1 / 10e9;
    link.shared_cores = cores;
    return link;
}

// A LeNet-like workload measured on one device: 1000 samples in 10 steps of
// 100; per sample 0.4 ms forward+backward and 0.1 ms data; per step 5 ms
// update and 10 ms outside the phases.
dp::WorkloadProfile lenet_like() {
    dp::WorkloadProfile profile;
    profile.samples_per_epoch = 1000;
    profile.global_batch = 100;
    profile.compute_per_sample = 0.4e-3;
    profile.data_per_sample = 0.1e-3;
    profile.update_per_step = 5e-3;
    profile.host_per_step = 10e-3;
    profile.gradient_bytes = 516e3;
    profile.buckets = 1;
    return profile;
}

dp::RunSummary one_device_run() {
    dp::RunSummary run;
    run.devices = {"cpu:0"};
    run.steps = 10;
    run.step_totals = {{.shard = 1000, .data = 0.1, .forward = 0.15, .backward = 0.25,
                        .allreduce = 0, .update = 0.05}};
    dp::EpochMetrics epoch;
    epoch.epoch = 1;
    epoch.seconds = 0.1 + 0.4 + 0.05 + 0.1;  // 0.1 s outside the phases
    run.epochs = {epoch};
    return run;
}

double speedup_at(const dp::WorkloadProfile& profile, const dp::PredictionSettings& settings,
                  int devices) {
    return dp::predict(profile, settings, {devices}).front().speedup;
}

}  // namespace

class TestScalingPredictor : public QObject {
    Q_OBJECT

private slots:
    // DataParallel is, per step, a gradient reduce to device 0 (N-1 buffers
    // into its link) and a parameter broadcast (N-1 out): naive's bytes, as
    // nn.DataParallel moves them; then the output gather and scatter (their
    // latencies: N-1 each), and one update, device 0's.
    void dataParallelAddsItsBroadcastGatherAndSerialUpdate() {
        const dp::LinkModel pcie = preset("PCIe 4.0 x16");
        const dp::WorkloadProfile profile = lenet_like();
        const auto point = [&](dp::AllReduceStrategy algorithm, const dp::LinkModel& link,
                               const dp::CoreSharing& sharing) {
            return dp::predict(profile, {algorithm, link, sharing, dp::Scaling::strong}, {2}).front();
        };
        const dp::PredictedPoint naive = point(dp::AllReduceStrategy::naive, pcie, {});
        const dp::PredictedPoint dataparallel = point(dp::AllReduceStrategy::dataparallel, pcie, {});
        // 10 steps an epoch, 2 devices: naive's 2 alphas + 2 B beta against
        // reduce and broadcast's alpha + B beta each, then the gather's and
        // the scatter's alpha: 2 alphas more.
        const double extra = 10 * 2 * pcie.alpha;
        QVERIFY(std::abs(dataparallel.all_reduce - naive.all_reduce - extra) < 1e-12);
        QCOMPARE(dataparallel.compute, naive.compute);
        const dp::AllReduceTerms reduce = dp::reduce_terms(pcie, 4);
        QCOMPARE(reduce.latency_terms, 3.0);
        QCOMPARE(reduce.byte_terms, 3.0);
        // A wake-up: the gather pays one more a step, the broadcasts none.
        dp::LinkModel waking = pcie;
        waking.wake = 1e-3;
        const double with_wake = point(dp::AllReduceStrategy::dataparallel, waking, {}).all_reduce -
                                 point(dp::AllReduceStrategy::naive, waking, {}).all_reduce;
        QVERIFY(std::abs(with_wake - extra - 10 * waking.wake) < 1e-12);
        QCOMPARE(dataparallel.update, 10 * profile.update_per_step);
        // On shared cores, every device updating at once slows each; device 0 alone does not.
        dp::CoreSharing sharing;
        sharing.cores = 2;
        sharing.busy_slowdown = 1.5;
        const double alone = 10 * profile.update_per_step;
        QVERIFY(std::abs(point(dp::AllReduceStrategy::ring, threads(2), sharing).update - 1.5 * alone) < 1e-12);
        QVERIFY(std::abs(point(dp::AllReduceStrategy::dataparallel, threads(2), sharing).update - alone) < 1e-12);
        const dp::AllReduceTerms broadcast = dp::broadcast_terms(threads(2), 4);
        QCOMPARE(broadcast.latency_terms, 4.0);  // 2 barriers, 2 turns of ranks on the busiest core
        QCOMPARE(broadcast.byte_terms, 2.0);     // 3 copies, 2 at a time
        const dp::AllReduceTerms reduce_on_threads = dp::reduce_terms(threads(2), 4);
        QCOMPARE(reduce_on_threads.latency_terms, 4.0);  // 2 barriers, 2 turns
        QCOMPARE(reduce_on_threads.byte_terms, 3.0);     // rank 0 adds 3 buffers alone
        QCOMPARE(dp::parse_all_reduce_strategy("dataparallel"), dp::AllReduceStrategy::dataparallel);
        QCOMPARE(std::string(dp::all_reduce_strategy_name(dp::AllReduceStrategy::dataparallel)), std::string("dataparallel"));
    }

    void fitRecoversAlphaAndBetaOfExactTimings() {
        const double alpha = 12e-6, beta = 1 / 4e9;
        std::vector<dp::ProbeSample> samples;
        for (double bytes : {4096.0, 65536.0, 524288.0, 2097152.0})
            samples.push_back({bytes, alpha + beta * bytes});
        const dp::LatencyBandwidthFit fit = dp::fit_latency_bandwidth(samples);
        QVERIFY(std::abs(fit.alpha - alpha) < 1e-9);
        QVERIFY(std::abs(fit.beta - beta) / beta < 1e-9);
    }

    void fitAveragesNoiseAndNeverGoesNegative() {
        // +-5% alternating noise: the fit stays within 10% of the truth.
        const double alpha = 50e-6, beta = 1 / 2e9;
        std::vector<dp::ProbeSample> samples;
        int sign = 1;
        for (double bytes : {4096.0, 4096.0, 65536.0, 65536.0, 2097152.0, 2097152.0}) {
            samples.push_back({bytes, (alpha + beta * bytes) * (1 + 0.05 * sign)});
            sign = -sign;
        }
        const dp::LatencyBandwidthFit noisy = dp::fit_latency_bandwidth(samples);
        QVERIFY(std::abs(noisy.alpha - alpha) / alpha < 0.1);
        QVERIFY(std::abs(noisy.beta - beta) / beta < 0.1);
        // Timings that fall with size would give a negative alpha: refitted through 0.
        const std::vector<dp::ProbeSample> falling{{1000, 3e-6}, {2000, 1e-6}, {4000, 2e-6}};
        const dp::LatencyBandwidthFit clamped = dp::fit_latency_bandwidth(falling);
        QVERIFY(clamped.alpha >= 0);
        QVERIFY(clamped.beta >= 0);
    }

    void fitNeedsTwoSizes() {
        const std::vector<dp::ProbeSample> one_size{{4096, 1e-5}, {4096, 2e-5}};
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::fit_latency_bandwidth(one_size));
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::fit_latency_bandwidth({}));
    }

    void oneDeviceHasNoCommunication() {
        for (const auto algorithm : {dp::AllReduceStrategy::naive, dp::AllReduceStrategy::ring})
            for (const dp::LinkModel& link : {preset("10 GbE"), threads(2)}) {
                QCOMPARE(dp::all_reduce_seconds(algorithm, link, 1, 1e6), 0.0);
                QVERIFY(dp::all_reduce_seconds(algorithm, link, 2, 1e6) > 0);
            }
    }

    void ringBeatsNaiveForLargeMessagesOnManyDevices() {
        const dp::LinkModel link = preset("PCIe 4.0 x16");
        const double large = 44.7e6;
        const double ring = dp::all_reduce_seconds(dp::AllReduceStrategy::ring, link, 64, large);
        const double naive = dp::all_reduce_seconds(dp::AllReduceStrategy::naive, link, 64, large);
        QVERIFY(ring * 20 < naive);  // 2(N-1)/N against 2(N-1) buffers: about N times less
        // On 2 devices the ring sends half buffers both ways at once, twice:
        // one buffer's time against naive's gather then broadcast, two.
        const double ring2 = dp::all_reduce_seconds(dp::AllReduceStrategy::ring, link, 2, large);
        const double naive2 = dp::all_reduce_seconds(dp::AllReduceStrategy::naive, link, 2, large);
        QVERIFY(ring2 < naive2 && naive2 < 2 * ring2);
    }

    void threadNaiveMeetsFewerTimesThanTheRing() {
        // The thread strategies: naive meets at 3 barriers, the ring at 2N-1,
        // so tiny buffers favour naive and large ones the ring.
        const dp::LinkModel link = threads(8);
        QVERIFY(dp::all_reduce_seconds(dp::AllReduceStrategy::naive, link, 8, 16) <
                dp::all_reduce_seconds(dp::AllReduceStrategy::ring, link, 8, 16));
        QVERIFY(dp::all_reduce_seconds(dp::AllReduceStrategy::ring, link, 8, 64e6) <
                dp::all_reduce_seconds(dp::AllReduceStrategy::naive, link, 8, 64e6));
    }

    void threadLinkFromAFitReproducesTheFitWhereItWasMeasured() {
        for (const auto algorithm : {dp::AllReduceStrategy::naive, dp::AllReduceStrategy::ring}) {
            const dp::LinkModel link = dp::thread_link_from_fit(algorithm, 3, 2, 20e-6, 1 / 3e9);
            QCOMPARE(link.shared_cores, 2);
            for (double bytes : {1e3, 1e6}) {
                const double fitted = 20e-6 + bytes / 3e9;
                QVERIFY(std::abs(dp::all_reduce_seconds(algorithm, link, 3, bytes) - fitted) <
                        1e-12);
            }
        }
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::thread_link_from_fit(dp::AllReduceStrategy::ring, 1, 2, 0, 0));
    }

    void devicesBeyondTheCoresTakeTurns() {
        dp::CoreSharing sharing;
        sharing.cores = 2;
        sharing.busy_slowdown = 1.5;
        QCOMPARE(sharing.slowdown(1), 1.0);
        QCOMPARE(sharing.slowdown(2), 1.5);
        // Core 0 runs devices 0 and 2: one turn beside core 1, one alone.
        QCOMPARE(sharing.slowdown(3), 1.5 + 1.0);
        QCOMPARE(sharing.slowdown(4), 3.0);
        QCOMPARE(sharing.finish_seconds({1.0, 3.0}), 1.5 + 2.0);
        QCOMPARE(dp::CoreSharing{}.slowdown(64), 1.0);  // GPUs share nothing
    }

    void strongScalingSaturates() {
        dp::PredictionSettings settings;
        settings.link = preset("10 GbE");
        const dp::WorkloadProfile profile = lenet_like();
        const double at2 = speedup_at(profile, settings, 2), at32 = speedup_at(profile, settings, 32),
                     at64 = speedup_at(profile, settings, 64);
        QVERIFY(at2 > 1);
        QVERIFY(at64 < 64);
        QVERIFY(at64 < at32 * 1.25);  // doubling the devices gains little
        // With this machine's 2 shared cores the speedup stays near 2 / 1.5.
        settings.link = threads(2);
        settings.sharing = {2, 1.5, "test"};
        QVERIFY(speedup_at(profile, settings, 64) < 2 / 1.5 + 0.01);
    }

    void weakScalingEpochsGetShorter() {
        dp::PredictionSettings settings;
        settings.link = preset("NVLink 3 (A100)");
        settings.scaling = dp::Scaling::weak;
        dp::WorkloadProfile profile = lenet_like();
        profile.samples_per_epoch = 60000;
        const auto points = dp::predict(profile, settings, dp::prediction_device_counts());
        QCOMPARE(points.size(), std::size_t(7));
        for (std::size_t i = 1; i < points.size(); ++i) {
            QVERIFY(points[i].seconds_per_epoch < points[i - 1].seconds_per_epoch);
            QCOMPARE(points[i].global_batch, 100 * points[i].devices);
        }
    }

    void partsAddUpToTheEpoch() {
        dp::PredictionSettings settings;
        settings.link = preset("PCIe 4.0 x16");
        settings.algorithm = dp::AllReduceStrategy::naive;
        for (const dp::PredictedPoint& point : dp::predict(lenet_like(), settings, {1, 3, 16})) {
            const double parts = point.compute + point.all_reduce + point.update +
                                 point.data_and_host + point.straggler_wait;
            QVERIFY(std::abs(parts - point.seconds_per_epoch) < 1e-12);
            QCOMPARE(point.all_reduce == 0, point.devices == 1);
        }
    }

    void profileOfAOneDeviceRunPredictsItsOwnEpoch() {
        dp::TrainConfig config;
        config.batch_size = 100;
        const dp::RunSummary run = one_device_run();
        const dp::WorkloadProfile profile = dp::workload_profile(config, run, dp::CoreSharing{});
        QCOMPARE(profile.samples_per_epoch, std::int64_t(1000));
        QVERIFY(std::abs(profile.compute_per_sample - 0.4e-3) < 1e-12);
        QVERIFY(std::abs(profile.host_per_step - 0.01) < 1e-12);
        QCOMPARE(profile.buckets, 1);  // LeNet's 516 KB fit in the first 1 MB bucket
        dp::PredictionSettings settings;
        settings.link = preset("10 GbE");
        const dp::PredictedPoint one = dp::predict(profile, settings, {1}).front();
        QVERIFY(std::abs(one.seconds_per_epoch - run.epochs.front().seconds) < 1e-9);
        QCOMPARE(one.speedup, 1.0);
    }

    void runWithoutStepTimingsIsRefused() {
        dp::RunSummary run = one_device_run();
        run.step_totals.clear();
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::workload_profile(dp::TrainConfig{}, run, {}));
    }

    void coreSharingIsFittedFromATwoDeviceRun() {
        const dp::RunSummary one = one_device_run();
        dp::RunSummary two = one;
        two.devices = {"cpu:0", "cpu:1"};
        dp::DeviceStepTiming half = one.step_totals.front();
        half.shard = 500;
        half.forward *= 0.8;  // per sample 1.6x the 1-device run's
        half.backward *= 0.8;
        two.step_totals = {half, half};
        const std::vector<dp::TrainConfig> configs(2);
        const dp::CoreSharing fitted = dp::fit_core_sharing(2, configs, {one, two});
        QVERIFY(std::abs(fitted.busy_slowdown - 1.6) < 1e-9);
        QVERIFY(!fitted.source.empty());
        QVERIFY(dp::fit_core_sharing(2, {configs[0]}, {one}).source.empty());
    }

    // dp-train --compare 1,4 on 2 cores: the 4-device run's devices take
    // turns, 2 a core, so its last device per core computes 2 x
    // busy_slowdown as long a sample as the 1-device run; the first of each
    // pair, done before the other started, only busy_slowdown. 3 devices on
    // 2 cores share unevenly: not fitted.
    void coreSharingIsFittedFromTurnsOnEveryCore() {
        const dp::RunSummary one = one_device_run();
        dp::RunSummary four = one;
        dp::DeviceStepTiming first = one.step_totals.front();
        first.shard = 250;
        first.forward *= 0.25 * 1.3;  // per sample 1.3x the 1-device run's
        first.backward *= 0.25 * 1.3;
        dp::DeviceStepTiming last = first;
        last.forward *= 2;  // waited for its core's other device's turn
        last.backward *= 2;
        four.step_totals = {first, first, last, last};
        const std::vector<dp::TrainConfig> configs(2);
        const dp::CoreSharing fitted = dp::fit_core_sharing(2, configs, {one, four});
        QVERIFY2(std::abs(fitted.busy_slowdown - 1.3) < 1e-9, qPrintable(QString::number(fitted.busy_slowdown)));
        QVERIFY2(fitted.source.find("4-device") != std::string::npos, fitted.source.c_str());
        QVERIFY(std::abs(fitted.slowdown(4) - 2 * 1.3) < 1e-9);
        dp::RunSummary three = four;
        three.step_totals.pop_back();
        QVERIFY(dp::fit_core_sharing(2, configs, {one, three}).source.empty());
        // A run on 2 devices, each on its own core, is better evidence: the turns are left out.
        dp::RunSummary two = one;
        dp::DeviceStepTiming half = one.step_totals.front();
        half.shard = 500;
        half.forward *= 0.5 * 1.1;
        half.backward *= 0.5 * 1.1;
        two.step_totals = {half, half};
        const dp::CoreSharing both = dp::fit_core_sharing(2, std::vector<dp::TrainConfig>(3), {one, two, four});
        QVERIFY2(std::abs(both.busy_slowdown - 1.1) < 1e-9, qPrintable(QString::number(both.busy_slowdown)));
        QVERIFY2(both.source.find("the 2-device run") != std::string::npos, both.source.c_str());
    }

    void bucketsFollowTheBucketPlan() {
        QCOMPARE(dp::bucket_count(516e3, 25), 1);
        QCOMPARE(dp::bucket_count(44.7e6, 25), 3);  // 1 MB, then 25 MB buckets
        QCOMPARE(dp::bucket_count(44.7e6, 0.5), int(std::ceil(44.7e6 / (0.5 * 1048576))));
    }

    void unknownStrategyNamesTheKnownOnes() {
        try {
            dp::parse_all_reduce_strategy("tree");
            QFAIL("no error");
        } catch (const dp::Error& error) {
            QVERIFY(std::string(error.what()).find("naive, ring") != std::string::npos);
        }
    }

    void probeFitsItsOwnSamples() {
        const dp::AllReduceProbe probe = dp::probe_all_reduce("ring", 2, 0.05);
        QCOMPARE(probe.samples.size(), std::size_t(4));
        QVERIFY(probe.fit.alpha >= 0 && probe.fit.beta >= 0);
        QVERIFY(probe.cores >= 1);
        QVERIFY(dp::probe_all_reduce("naive", 1).samples.empty());
    }

    // A record of 1,024 ranks asked for 1,024 threads (24 GB, or
    // std::terminate when threads ran out): the probe refuses more than its
    // cap in one line, and the link measures that many, saying so.
    void probeSizeIsCapped() {
        try {
            dp::probe_all_reduce("ring", dp::kMaxProbeRanks + 1, 0.05);
            QFAIL("no error");
        } catch (const dp::Error& error) {
            QVERIFY2(std::string(error.what()).find("at most 64 threads") != std::string::npos,
                     error.what());
        }
    }

    void tableShowsMeasuredPointsWithTheirError() {
        dp::LinkChoice link{{}, {preset("10 GbE")}};
        const dp::WorkloadProfile profile = lenet_like();
        dp::PredictionSettings settings{dp::AllReduceStrategy::ring, link.at(2), {}, dp::Scaling::strong};
        const double predicted = dp::predict(profile, settings, {3}).front().seconds_per_epoch;
        const std::string table = dp::format_prediction_table(
            profile, dp::AllReduceStrategy::ring, link, {}, {{3, 100, predicted / 1.1}});
        QVERIFY2(table.find("\n      3 |") != std::string::npos, table.c_str());  // a measured count is a row
        QVERIFY2(table.find("+10%") != std::string::npos, table.c_str());
        QVERIFY(table.find("\n     64 |") != std::string::npos);
    }

    // dp-train --compare 1,2,4 on 2 cores: the 4-device run's wake-up (its
    // threads waiting for a core) is not the 2-device prediction's, nor the
    // other way round; each count takes the other counts' runs on its side
    // of the core count, never its own (unless it is the only run).
    void wakeUpComesFromOtherRunsOnTheSameSideOfTheCores() {
        const std::vector<dp::RunWake> compare124{{2, 0.2e-3}, {4, 1.65e-3}};
        QCOMPARE(dp::wake_from_other_runs(2, 2, compare124).runs, 0);  // the probe's stands
        QCOMPARE(dp::wake_from_other_runs(4, 2, compare124).runs, 0);
        // On 8 cores both have a core each: each takes the other's.
        QCOMPARE(dp::wake_from_other_runs(2, 8, compare124).seconds, 1.65e-3);
        QCOMPARE(dp::wake_from_other_runs(4, 8, compare124).seconds, 0.2e-3);
        // Repeats of a count are still that count's own runs.
        const std::vector<dp::RunWake> repeated{{2, 0.1e-3}, {2, 0.3e-3}, {3, 0.5e-3}, {4, 0.9e-3}};
        const dp::FittedWake two = dp::wake_from_other_runs(2, 4, repeated);
        QCOMPARE(two.runs, 2);
        QVERIFY(qAbs(two.seconds - 0.7e-3) < 1e-15);
        QCOMPARE(dp::wake_from_other_runs(3, 4, repeated).runs, 3);
        // One multi-device run: its own, as there is nothing else.
        QCOMPARE(dp::wake_from_other_runs(2, 2, {{2, 0.4e-3}}).seconds, 0.4e-3);
        QCOMPARE(dp::wake_from_other_runs(4, 2, {{2, 0.4e-3}}).runs, 0);
    }

    // Issue 42: the Scaling tab's band (1.18-1.63x) left a measured 0.89x
    // without comment. A range outside the band gets one sentence, which way
    // and why from the runs' own numbers; a range that overlaps it, none.
    void aMeasurementOutsideTheBandSaysWhichWayAndWhy() {
        dp::BandCheck check{.devices = 2, .speedup = 0.89, .speedup_min = 0.85, .speedup_max = 0.93,
                            .band_low = 1.18, .band_high = 1.63};
        dp::BandEvidence evidence;
        evidence.steady_epochs = 9;
        evidence.other_cores = 1.3;
        evidence.busy = true;
        evidence.usable_cores = 2;
        const auto comment = [&] { return dp::band_miss_comment(check, evidence); };
        QCOMPARE(comment(), std::string("2 devices: measured 0.89x (0.85-0.93), below the predicted 1.18-1.63x, "
                                        "likely because the machine was busy while the 2-device run trained (other "
                                        "processes kept 1.3 of its 2 cores busy)."));
        // Its baseline's load says nothing of a slow N-device run: the next reason.
        evidence.busy = false;
        evidence.baseline_busy = true;
        evidence.steady_epochs = 1;
        QVERIFY2(comment().ends_with("likely because the runs had only 1 steady epoch (after the first) to "
                                     "measure it by: train 4 or more epochs, or repeat the comparison."),
                 comment().c_str());
        // Compute and communication beside the prediction: the one further off is named.
        evidence.steady_epochs = 4;
        evidence.compute = 3.0;
        evidence.predicted_compute = 2.0;
        evidence.communication = 0.9;
        evidence.predicted_communication = 0.2;
        QVERIFY2(comment().ends_with("likely because its devices computed 3.00 s per epoch against the 2.00 s "
                                     "predicted (cores slower than the 1-device run's, or shared)."),
                 comment().c_str());
        evidence.communication = 1.5;
        QVERIFY2(comment().find("its all-reduce waits took 1.50 s per epoch against the 0.20 s") != std::string::npos,
                 comment().c_str());
        // Nothing far from the prediction: said so, not guessed.
        evidence.compute = 2.1;
        evidence.communication = 0.25;
        QVERIFY2(comment().ends_with("nothing in the runs' own numbers explains it: see the model's assumptions."),
                 comment().c_str());
        // Above the band: the baseline's load slowed the baseline.
        check = {.devices = 2, .speedup = 1.9, .speedup_min = 1.8, .speedup_max = 1.95, .band_low = 1.18,
                 .band_high = 1.63};
        evidence.baseline_other_cores = 0.8;
        QVERIFY2(comment().starts_with("2 devices: measured 1.90x (1.80-1.95), above the predicted 1.18-1.63x, "
                                       "likely because the machine was busy while its baseline trained (other "
                                       "processes kept 0.8 cores busy), which made the baseline slow."),
                 comment().c_str());
        // A range that overlaps the band, at either end, or lies inside it: no comment.
        for (const auto& [min, max] : {std::pair{0.9, 1.2}, std::pair{1.6, 2.0}, std::pair{1.3, 1.4},
                                       std::pair{0.5, 3.0}}) {
            check.speedup_min = min;
            check.speedup_max = max;
            QCOMPARE(comment(), std::string());
        }
        // A repeat of the 1-device baseline off its band of 1x: no prediction missed.
        check = {.devices = 1, .speedup = 0.8, .speedup_min = 0.63, .speedup_max = 0.97, .band_low = 1,
                 .band_high = 1};
        QCOMPARE(comment(), std::string());
        // No band (a preset link has no probes): no comment.
        check.devices = 2;
        check.band_low = check.band_high = 0;
        QCOMPARE(comment(), std::string());
    }

    // The phases the comment weighs: the slowest device's compute and the
    // least communication wait, per epoch, beside the prediction's.
    void phaseEvidenceIsTheSlowestComputeAndTheLeastWait() {
        dp::RunSummary run;
        run.epochs.resize(2);
        run.steps = 20;
        run.step_totals = {{.shard = 100, .forward = 1, .backward = 2, .allreduce = 0.6},
                           {.shard = 100, .forward = 1.5, .backward = 2.5, .allreduce = 0.2}};
        dp::PredictedPoint predicted;
        predicted.compute = 1.5;
        predicted.all_reduce = 0.05;
        dp::BandEvidence evidence;
        dp::add_phase_evidence(evidence, run, predicted);
        QCOMPARE(evidence.compute, 2.0);        // 4 s over 2 epochs
        QCOMPARE(evidence.communication, 0.1);  // 0.2 s over 2 epochs
        QCOMPARE(evidence.predicted_compute, 1.5);
        QCOMPARE(evidence.predicted_communication, 0.05);
        // A record without step timings leaves them unknown.
        dp::BandEvidence untimed;
        run.step_totals.clear();
        dp::add_phase_evidence(untimed, run, predicted);
        QCOMPARE(untimed.compute, 0.0);
        QCOMPARE(untimed.predicted_compute, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestScalingPredictor)
#include "test_scaling_predictor.moc"
