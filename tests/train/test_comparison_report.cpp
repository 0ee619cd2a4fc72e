// The speedup-gap breakdown (scaling/speedup_gap.h) and dp-train's comparison
// report (scaling/comparison_report.h), parsed back with Qt's JSON reader.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>

#include "core/error.h"
#include "scaling/comparison_report.h"
#include "scaling/scaling_comparison.h"
#include "scaling/speedup_gap.h"

namespace {

// `epochs` epochs of `seconds` each, and each device's phases summed over `steps`.
dp::RunSummary timed_run(int epochs, double seconds, std::int64_t steps,
                         std::vector<dp::DeviceStepTiming> totals) {
    dp::RunSummary run;
    for (int e = 1; e <= epochs; ++e) run.epochs.push_back({e, 1.0, 0.5, 0.8, seconds});
    for (std::size_t d = 0; d < totals.size(); ++d) run.devices.push_back("cpu:" + std::to_string(d));
    run.step_totals = std::move(totals);
    run.steps = steps;
    return run;
}

// 1 device at 10 s/epoch; 2 devices at 6.5 s/epoch, whose all-reduce is
// half hidden and whose second device waits for the first.
dp::RunSummary one_device() { return timed_run(2, 10, 20, {{5120, 0.4, 6, 12, 0, 1.2}}); }
dp::RunSummary two_devices() {
    return timed_run(2, 6.5, 20, {{2560, 0.4, 3.4, 6.6, 1.0, 1.2}, {2560, 0.4, 3.2, 6.4, 1.6, 1.2}});
}

}  // namespace

class TestComparisonReport : public QObject {
    Q_OBJECT

private slots:
    void partsAddUpToTheGap() {
        const dp::SpeedupGap gap = dp::speedup_gap(one_device(), two_devices());
        QCOMPARE(gap.devices, 2);
        QCOMPARE(gap.measured, 6.5);
        QCOMPARE(gap.ideal, 5.0);
        QCOMPARE(gap.parts.size(), std::size_t(6));
        double seconds = 0, shares = 0;
        for (const dp::GapPart& part : gap.parts) {
            seconds += part.seconds;
            shares += gap.share(part);
            QVERIFY(!part.short_name.empty() && part.short_name.size() < part.name.size());
        }
        QVERIFY(std::abs(seconds - gap.gap()) < 1e-9);
        QVERIFY(std::abs(shares - 1) < 1e-9);
        // Per epoch (10 steps): the least wait 1.0 s / 20 steps x 10 = 0.5 s;
        // the other device's extra 0.6 s / 20 x 10 / 2 devices = 0.15 s.
        QVERIFY(std::abs(gap.parts[1].seconds - 0.5) < 1e-12);
        QVERIFY(std::abs(gap.parts[2].seconds - 0.15) < 1e-12);
        // Compute: the devices' mean 9.8 s over 2 epochs is 4.9 s an epoch,
        // against 1 device's 9 s an epoch / 2.
        QVERIFY(std::abs(gap.parts[0].seconds - (4.9 - 4.5)) < 1e-12);
        // The largest part names itself in the verdict, with its share.
        const std::string verdict = gap.verdict();
        QVERIFY2(verdict.starts_with(gap.parts[1].name + ": 33% of the gap; try larger buckets"),
                 verdict.c_str());
    }

    // A DataParallel run (its devices time an output gather): device 0's
    // update counts whole, as the others wait for it, the parameter
    // broadcast and output gather are parts of their own, and its gradient
    // sum is a reduce to device 0, whose advice is DDP's, not buckets.
    void dataParallelRunNamesItsOwnParts() {
        const dp::RunSummary dataparallel = timed_run(
            2, 7, 20,
            {{.shard = 2560, .data = 0.4, .forward = 3.4, .backward = 6.6, .allreduce = 0.5,
              .update = 1.2, .gather = 0.3, .broadcast = 0.2},
             {.shard = 2560, .data = 0.4, .forward = 3.2, .backward = 6.4, .allreduce = 0.6,
              .update = 0, .gather = 0.5, .broadcast = 1.4}});
        dp::TrainConfig one, many;
        one.devices = {"cpu:0"};
        many.devices = {"cpu:0", "cpu:1"};
        many.allreduce = dp::AllReduceStrategy::dataparallel;
        const dp::SpeedupGap gap = dp::explain_speedup_gap(one, one_device(), many, dataparallel, 2);
        const auto seconds_of = [&](const std::string& short_name) {
            for (const dp::GapPart& part : gap.parts)
                if (part.short_name == short_name) return part.seconds;
            return -1.0;
        };
        QCOMPARE(gap.parts.size(), std::size_t(8));
        // Per epoch (10 steps): device 0's 1.2 s / 20 steps x 10, less 1 device's / 2.
        QVERIFY(std::abs(seconds_of("serial update") - (0.6 - 0.3)) < 1e-12);
        QCOMPARE(seconds_of("update"), -1.0);  // renamed, not doubled
        QVERIFY(std::abs(seconds_of("broadcast") - 0.1) < 1e-12);  // device 0's 0.2 s
        QVERIFY(std::abs(seconds_of("output gather") - 0.2) < 1e-12);  // the mean, 0.4 s
        QCOMPARE(seconds_of("all-reduce"), -1.0);
        QVERIFY(seconds_of("gradient reduce") >= 0);
        for (const dp::GapPart& part : gap.parts)
            if (part.short_name == "gradient reduce") {
                QCOMPARE(part.name, std::string("gradient reduce to device 0"));
                QVERIFY2(part.advice.starts_with("DDP ({allreduce} ring)") &&
                             part.advice.find("bucket_mb") == std::string::npos,
                         part.advice.c_str());
            }
        double sum = 0;
        for (const dp::GapPart& part : gap.parts) sum += part.seconds;
        QVERIFY(std::abs(sum - gap.gap()) < 1e-9);
        const std::string table = dp::format_speedup_gap(gap);
        QVERIFY(table.find("parameter broadcast from device 0") != std::string::npos);
        QVERIFY(table.find("serial update on device 0") != std::string::npos);
        // A ring run has none of them.
        for (const dp::GapPart& part : dp::speedup_gap(one_device(), two_devices()).parts)
            QVERIFY(part.short_name != "broadcast" && part.short_name != "output gather");
    }

    void runsWithoutTimingsAreRefused() {
        dp::RunSummary untimed = two_devices();
        untimed.step_totals.clear();
        QVERIFY(!dp::has_step_timings(untimed));
        QVERIFY(dp::has_step_timings(two_devices()));
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::speedup_gap(one_device(), untimed));
    }

    void reportHoldsTheRowsAndEachGap() {
        std::vector<dp::ComparisonRow> rows(2);
        rows[0] = {.devices = 1, .global_batch = 256, .lr = 0.2, .seconds_per_epoch = 10, .speedup = 1,
                   .efficiency = 1, .final_test_acc = 0.81, .parameter_drift = std::nan(""), .load = {}};
        rows[1] = {.devices = 2, .global_batch = 256, .lr = 0.2, .seconds_per_epoch = 6.5,
                   .speedup = 10 / 6.5, .efficiency = 10 / 6.5 / 2, .final_test_acc = 0.8125,
                   .parameter_drift = 3e-9, .load = {}};
        dp::SpeedupGap gap = dp::speedup_gap(one_device(), two_devices());
        gap.parts[0].advice = "a \"quoted\" hint";  // texts are escaped
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(
            QByteArray::fromStdString(dp::comparison_report_json({rows}, {gap})), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject report = document.object();
        QCOMPARE(report["format"].toString(), QStringLiteral("dp-train comparison report"));
        QCOMPARE(report["version"].toInt(), 2);
        const QJsonArray runs = report["runs"].toArray();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0].toObject()["devices"].toInt(), 1);
        QVERIFY(runs[0].toObject()["parameter_drift"].isNull());  // not measured
        const QJsonObject two = runs[1].toObject();
        for (const char* key : {"devices", "global_batch", "lr", "seconds_per_epoch", "speedup",
                                "efficiency", "final_test_acc", "parameter_drift"})
            QVERIFY2(two.contains(QLatin1String(key)), key);
        QCOMPARE(two["global_batch"].toInt(), 256);
        QCOMPARE(two["speedup"].toDouble(), 10 / 6.5);
        QCOMPARE(two["parameter_drift"].toDouble(), 3e-9);
        const QJsonArray gaps = report["speedup_gaps"].toArray();
        QCOMPARE(gaps.size(), 1);
        const QJsonObject written = gaps[0].toObject();
        QCOMPARE(written["devices"].toInt(), 2);
        QCOMPARE(written["measured"].toDouble(), 6.5);
        QCOMPARE(written["ideal"].toDouble(), 5.0);
        QCOMPARE(written["gap"].toDouble(), 1.5);
        QCOMPARE(written["verdict"].toString().toStdString(), gap.verdict());
        const QJsonArray parts = written["parts"].toArray();
        QCOMPARE(parts.size(), qsizetype(gap.parts.size()));
        double seconds = 0, shares = 0;
        for (const QJsonValue& part : parts) {
            seconds += part["seconds"].toDouble();
            shares += part["share"].toDouble();
            QVERIFY(!part["name"].toString().isEmpty() && !part["advice"].toString().isEmpty());
        }
        QVERIFY(std::abs(seconds - 1.5) < 1e-9);
        QVERIFY(std::abs(shares - 1) < 1e-9);
        QCOMPARE(parts[0]["advice"].toString(), QStringLiteral("a \"quoted\" hint"));
    }

    void reportIsWrittenWholeOrNotAtAll() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("report.json").toStdString();
        dp::write_comparison_report(file, {}, {});  // no repeats
        QFile written(QString::fromStdString(file));
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QJsonObject empty = QJsonDocument::fromJson(written.readAll()).object();
        QVERIFY(empty["runs"].toArray().isEmpty() && empty["speedup_gaps"].toArray().isEmpty());
        QVERIFY_THROWS_EXCEPTION(dp::Error,
                                 dp::write_comparison_report("/nonexistent-folder/r.json", {}, {}));
    }

    // A run's time per epoch is the median of the epochs after the first,
    // which pays for kernel tuning and warm-up; the range is kept beside it.
    void epochTimeIsTheSteadyEpochsMedian() {
        std::vector<dp::EpochMetrics> epochs;
        for (double seconds : {1.85, 1.40, 1.30, 1.55, 1.35}) {
            epochs.push_back({});
            epochs.back().seconds = seconds;
        }
        const dp::EpochTime time = dp::epoch_time(epochs);
        QCOMPARE(time.first, 1.85);
        QCOMPARE(time.steady_epochs, 4);
        QCOMPARE(time.median, (1.35 + 1.40) / 2);
        QCOMPARE(time.min, 1.30);
        QCOMPARE(time.max, 1.55);
        epochs.resize(1);  // one epoch: only it to go by
        QCOMPARE(dp::epoch_time(epochs).median, 1.85);
        QCOMPARE(dp::epoch_time({}).steady_epochs, 0);
    }

    // A gap no larger than the epochs' spread gets no shares and no blame.
    void aGapInsideTheNoiseIsNotSplit() {
        dp::RunSummary one = timed_run(3, 10, 30, {{7680, 0.4, 9, 18, 0, 1.8}});
        dp::RunSummary two = timed_run(3, 5.1, 30, {{3840, 0.4, 4.6, 9.2, 1.0, 1.8},
                                                    {3840, 0.4, 4.5, 9.0, 1.2, 1.8}});
        two.epochs[1].seconds = 4.9;  // steady epochs 4.9 and 5.1: median 5.0, noise 0.1
        two.epochs[2].seconds = 5.1;
        const dp::SpeedupGap gap = dp::speedup_gap(one, two);
        QCOMPARE(gap.measured, 5.0);
        QCOMPARE(gap.ideal, 5.0);
        QVERIFY(gap.within_noise());
        for (const dp::GapPart& part : gap.parts) QCOMPARE(gap.share(part), 0.0);
        QVERIFY2(gap.verdict().starts_with("within noise: 2 devices are about 2 times faster"),
                 gap.verdict().c_str());
        QVERIFY(dp::format_speedup_gap(gap).find('%') == std::string::npos);
        // Pooled, the same: every share 0, the verdict "within noise".
        dp::SpeedupGap pooled = gap;
        dp::separate_noise(pooled);
        for (const dp::GapPart& part : pooled.parts) QCOMPARE(pooled.share(part), 0.0);
        QVERIFY(pooled.verdict().starts_with("within noise: "));
        // Outside it, the same runs are split as before.
        two.epochs[1].seconds = two.epochs[2].seconds = 6.5;
        QVERIFY(!dp::speedup_gap(one, two).within_noise());
    }

    // Issue 42: shares of a net gap read 114% and -31% when one part saved
    // time. The shares are of the time lost: each from 0 to 100%, adding up to
    // 100%, the part that saved time named beside them; the seconds still add
    // up to the gap.
    void sharesAreOfTheTimeLostNeverNegativeNorOverAHundred() {
        // The second device computes faster than half the first's (smaller
        // batches fit the caches): compute saves 1.1 s an epoch.
        const dp::RunSummary two = timed_run(
            2, 6.5, 20, {{2560, 0.4, 2.2, 4.6, 3.0, 1.2}, {2560, 0.4, 2.2, 4.6, 3.6, 1.2}});
        const dp::SpeedupGap gap = dp::speedup_gap(one_device(), two);
        QVERIFY(std::abs(gap.parts[0].seconds - -1.1) < 1e-12);  // compute: 3.4 s against 4.5 s
        QVERIFY(std::abs(gap.parts[1].seconds - 1.5) < 1e-12);   // the whole gap and more
        double seconds = 0, shares = 0;
        for (const dp::GapPart& part : gap.parts) {
            seconds += part.seconds;
            shares += gap.share(part);
            QVERIFY2(gap.share(part) >= 0 && gap.share(part) <= 1, part.name.c_str());
        }
        QVERIFY(std::abs(seconds - gap.gap()) < 1e-9);
        QVERIFY(std::abs(shares - 1) < 1e-9);
        QCOMPARE(gap.share(gap.parts[0]), 0.0);
        QVERIFY(std::abs(gap.lost() - 2.6) < 1e-9);
        QVERIFY(std::abs(gap.saved() - 1.1) < 1e-9);
        QVERIFY(std::abs(gap.lost() - gap.saved() - gap.gap()) < 1e-9);
        const std::string verdict = gap.verdict();
        QVERIFY2(verdict.starts_with("all-reduce not hidden behind backward: 58% of the 2.60 s per epoch "
                                     "lost (compute on smaller per-device batches saved 1.10 s of it); try"),
                 verdict.c_str());
        const std::string table = dp::format_speedup_gap(gap);
        QVERIFY2(table.find("-1.10 s  saved") != std::string::npos && table.find("-4") == std::string::npos &&
                     table.find("100%") == std::string::npos,
                 table.c_str());
        // A saving that prints as 0.00 s is not worth a word.
        dp::SpeedupGap tiny;
        tiny.devices = 2;
        tiny.ideal = 5;
        tiny.measured = 6;
        tiny.parts = {{"all-reduce not hidden behind backward", "all-reduce", "try it", 1.001},
                      {"data loading and host work", "data", "", -0.001}};
        QVERIFY2(tiny.verdict().starts_with("all-reduce not hidden behind backward: 100% of the gap; try it"),
                 tiny.verdict().c_str());
        QVERIFY(dp::format_speedup_gap(tiny).find("shares of the") == std::string::npos);
    }

    // Issue 42: a part within the epochs' own spread cannot be told from
    // noise. Such parts are pooled into one "within noise" part, put last;
    // the parts still add up to the gap and the shares to 1, and the verdict
    // blames a part that stands out of the noise.
    void partsWithinTheSpreadArePooledAsNoise() {
        const dp::RunSummary one = timed_run(3, 10, 30, {{7680, 0.6, 9, 18, 0, 1.8}});
        dp::RunSummary two = timed_run(3, 7, 30, {{3840, 0.6, 5.1, 9.9, 1.5, 1.8},
                                                  {3840, 0.6, 5.0, 9.8, 1.8, 1.8}});
        two.epochs[1].seconds = 6.3;  // steady epochs 6.3 and 6.7: median 6.5, noise 0.2
        two.epochs[2].seconds = 6.7;
        dp::SpeedupGap gap = dp::speedup_gap(one, two);
        QVERIFY(std::abs(gap.noise - 0.2) < 1e-12);
        const std::size_t before = gap.parts.size();
        const double ideal = gap.ideal, measured = gap.measured;
        dp::separate_noise(gap);
        QCOMPARE(gap.ideal, ideal);
        QCOMPARE(gap.measured, measured);
        // compute 0.47 s, all-reduce 0.5 s and update 0.3 s stand out; the
        // slowest device's 0.05 s, data's 0.1 s and the 0.08 s outside the
        // steps do not.
        std::vector<std::string> names;
        for (const dp::GapPart& part : gap.parts) names.push_back(part.short_name);
        QCOMPARE(names, (std::vector<std::string>{"compute", "all-reduce", "update", "within noise"}));
        QCOMPARE(gap.parts.size(), before - 2);
        const dp::GapPart& noise = gap.parts.back();
        QVERIFY(noise.noise);
        QCOMPARE(noise.name, std::string("within noise: slowest device, data, outside steps"));
        const double outside = 1.5 - (14.9 / 3 - 4.5) - 0.5 - 0.05 - 0.1 - 0.3;
        QVERIFY(std::abs(noise.seconds - (0.05 + 0.1 + outside)) < 1e-9);
        double seconds = 0, shares = 0;
        for (const dp::GapPart& part : gap.parts) {
            QVERIFY(part.noise == (&part == &noise) && (part.noise || std::abs(part.seconds) > gap.noise));
            seconds += part.seconds;
            shares += gap.share(part);
        }
        QVERIFY(std::abs(seconds - gap.gap()) < 1e-9);
        QVERIFY(std::abs(shares - 1) < 1e-9);
        QVERIFY2(gap.verdict().starts_with("all-reduce not hidden behind backward: "), gap.verdict().c_str());
        // The report marks it.
        const QJsonObject report =
            QJsonDocument::fromJson(QByteArray::fromStdString(dp::comparison_report_json({}, {gap}))).object();
        const QJsonArray parts = report["speedup_gaps"][0]["parts"].toArray();
        QCOMPARE(parts.size(), 4);
        QVERIFY(parts[3]["within_noise"].toBool() && !parts[0]["within_noise"].toBool());
        QCOMPARE(report["speedup_gaps"][0]["noise"].toDouble(), gap.noise);
        // Pooling again changes nothing; without noise nothing is pooled.
        dp::separate_noise(gap);
        QCOMPARE(gap.parts.size(), std::size_t(4));
        dp::SpeedupGap quiet = dp::speedup_gap(one_device(), two_devices());
        dp::separate_noise(quiet);
        QCOMPARE(quiet.parts.size(), std::size_t(6));
        // Every part within the noise while the gap is not: no part is blamed.
        dp::SpeedupGap spread;
        spread.devices = 2;
        spread.ideal = 5;
        spread.measured = 5.6;
        spread.noise = 0.25;
        spread.parts = {{"compute", "compute", "", 0.2}, {"data", "data", "", 0.2}, {"update", "update", "", 0.2}};
        dp::separate_noise(spread);
        QCOMPARE(spread.parts.size(), std::size_t(1));
        QCOMPARE(spread.share(spread.parts[0]), 1.0);
        QVERIFY2(spread.verdict().starts_with("no single part stands out of the noise"), spread.verdict().c_str());
    }

    // Advice that can be followed: never what is already chosen, and the
    // compute part named for weak scaling when each device kept its batch.
    void adviceFitsTheSettingsUsed() {
        dp::TrainConfig one, many;
        one.devices = {"cpu:0"};
        many.devices = {"cpu:0", "cpu:1"};
        many.allreduce = dp::AllReduceStrategy::ring;
        many.bucket_mb = 25;
        dp::SpeedupGap gap = dp::speedup_gap(one_device(), two_devices());
        const std::string compute = gap.parts[0].name;
        dp::fit_gap_to_settings(gap, one, many);
        QCOMPARE(gap.parts[0].name, compute);  // the same global batch: smaller shares
        // LeNet's 0.24 MB of gradients fit one 25 MB bucket: larger ones would change nothing.
        QVERIFY2(gap.parts[1].advice.starts_with("try fewer all-reduces per epoch") &&
                     gap.parts[1].advice.find("bucket") == std::string::npos &&
                     gap.parts[1].advice.find("ring") == std::string::npos,
                 gap.parts[1].advice.c_str());
        // ResNet-18's 43 MB span two: larger buckets are worth a try.
        many.model = "resnet18";
        dp::fit_gap_to_settings(gap, one, many);
        QVERIFY2(gap.parts[1].advice.starts_with("try larger buckets ({bucket_mb}, now 25 MB for 42") &&
                     gap.parts[1].advice.find("ring") == std::string::npos,
                 gap.parts[1].advice.c_str());
        many.allreduce = dp::AllReduceStrategy::naive;
        many.batch_size = 2 * one.batch_size;  // weak scaling
        dp::fit_gap_to_settings(gap, one, many);
        QVERIFY(gap.parts[1].advice.find("ring all-reduce ({allreduce})") != std::string::npos);
        QCOMPARE(gap.parts[0].name, std::string("compute at 1 device's per-device batch"));
    }

    // Repeats: each count's speedup is the median of its repeats, with the range.
    void repeatsGiveTheMedianSpeedupAndItsRange() {
        std::vector<std::vector<dp::ComparisonRow>> repeats;
        for (double speedup : {1.95, 0.73, 2.02}) {
            std::vector<dp::ComparisonRow> rows(2);
            rows[0].devices = 1;
            rows[0].speedup = 1;
            rows[1].devices = 2;
            rows[1].speedup = speedup;
            repeats.push_back(rows);
        }
        const auto speedups = dp::repeated_speedups(repeats);
        QCOMPARE(speedups.size(), std::size_t(2));
        QCOMPARE(speedups[1].median, 1.95);
        QCOMPARE(speedups[1].min, 0.73);
        QCOMPARE(speedups[1].max, 2.02);
        // The range holds 1x: no verdict either way, whatever the median says.
        QCOMPARE(dp::format_repeated_speedups(speedups),
                 std::string("2 devices: 1.95x (0.73-2.02) over 3 repeats: no measurable difference\n"));
    }

    // The verdict word follows the range, not the median: "0.92x (0.89-1.24)"
    // is no evidence of slowing down, nor "1.12x (0.99-1.25)" of speeding up.
    void theVerdictFollowsTheRange() {
        QCOMPARE(dp::speedup_verdict(0.89, 1.24), dp::SpeedupVerdict::no_measurable_difference);
        QCOMPARE(dp::speedup_verdict(0.99, 1.25), dp::SpeedupVerdict::no_measurable_difference);
        QCOMPARE(dp::speedup_verdict(1.19, 1.76), dp::SpeedupVerdict::faster);
        QCOMPARE(dp::speedup_verdict(0.50, 0.93), dp::SpeedupVerdict::slower);
        QCOMPARE(std::string(dp::speedup_verdict_text(dp::SpeedupVerdict::no_measurable_difference)),
                 std::string("no measurable difference"));
        // One repeat: the range the two runs' steady epochs allow.
        dp::TrainConfig one, two;
        one.devices = {"cpu:0"};
        two.devices = {"cpu:0", "cpu:1"};
        const auto run = [](std::vector<double> seconds) {
            dp::RunSummary summary;
            for (std::size_t i = 0; i < seconds.size(); ++i) {
                summary.epochs.emplace_back();
                summary.epochs.back().epoch = int(i) + 1;
                summary.epochs.back().seconds = seconds[i];
            }
            return summary;
        };
        // 1 device: steady 10, 12 (median 11); 2 devices: 9, 10 (median 9.5).
        const auto rows = dp::compare_runs({one, two}, {run({20, 10, 12}), run({20, 9, 10})});
        QCOMPARE(rows[1].speedup, 11 / 9.5);
        QCOMPARE(rows[1].speedup_min, 10 / 10.0);
        QCOMPARE(rows[1].speedup_max, 12 / 9.0);
        const auto speedups = dp::repeated_speedups({rows});
        QCOMPARE(speedups[1].repeats, 1);
        QCOMPARE(speedups[1].verdict(), dp::SpeedupVerdict::no_measurable_difference);  // 1.00-1.33
        QCOMPARE(dp::format_repeated_speedups(speedups),
                 std::string("2 devices: 1.16x (1.00-1.33) from the steady epochs: no measurable difference\n"));
        const auto faster = dp::compare_runs({one, two}, {run({20, 10, 12}), run({20, 5, 6})});
        QCOMPARE(dp::repeated_speedups({faster})[1].verdict(), dp::SpeedupVerdict::faster);

        // One steady epoch a run measures no spread: 10 s against 5 s is a
        // figure, not a verdict (it said "faster" from the two single epochs).
        const auto single = dp::compare_runs({one, two}, {run({20, 10}), run({20, 5})});
        QCOMPARE(single[1].speedup, 2.0);
        QVERIFY(!dp::has_speedup_range(single[1].speedup_min, single[1].speedup_max));
        const auto unranged = dp::repeated_speedups({single});
        QCOMPARE(unranged[1].verdict(), dp::SpeedupVerdict::too_few_epochs);
        QCOMPARE(dp::format_repeated_speedups(unranged),
                 std::string("2 devices: 2.00x (no range) from the steady epochs: too few epochs to tell\n"));
        // Repeated, the repeats' own spread is the range again.
        const auto again = dp::compare_runs({one, two}, {run({20, 10}), run({20, 6})});
        QCOMPARE(dp::repeated_speedups({single, again})[1].verdict(), dp::SpeedupVerdict::faster);
    }
};

QTEST_GUILESS_MAIN(TestComparisonReport)
#include "test_comparison_report.moc"
