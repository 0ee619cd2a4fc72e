// The Classroom's ring all-reduce: its schedule, simulated on integer
// gradients for 2..8 devices; its traffic against naive's; the view's steps.
#include <QtTest>

#include <QComboBox>
#include <QLabel>

#include <numeric>

#include "classroom_page.h"
#include "models/model_registry.h"
#include "record/run_record.h"
#include "scaling/scaling_probes.h"
#include "scaling_prediction_page.h"
#include "ring_allreduce_model.h"
#include "ring_allreduce_view.h"

namespace {

constexpr int kFloatsPerChunk = 3;

// Device d's gradient: distinct integers, so a sum that misses or repeats
// one device's part differs from the true sum.
std::vector<std::vector<long>> gradients(int devices)
{
    std::vector<std::vector<long>> buffers(static_cast<std::size_t>(devices));
    for (int d = 0; d < devices; ++d)
        for (int i = 0; i < devices * kFloatsPerChunk; ++i)
            buffers[std::size_t(d)].push_back(long(d + 1) * 1000 + i * (d + 3));
    return buffers;
}

// One step of the model's schedule on the buffers: each device adds
// (reduce-scatter) or copies (all-gather) the chunk it receives from its left
// neighbour, all reading the buffers as they were before the step.
void runStep(const RingAllReduceModel& model, int step, std::vector<std::vector<long>>& buffers)
{
    const auto before = buffers;
    for (int d = 0; d < model.devices(); ++d) {
        const int chunk = model.chunkReceived(d, step);
        const auto& left = before[std::size_t(model.leftNeighbour(d))];
        for (int i = chunk * kFloatsPerChunk; i < (chunk + 1) * kFloatsPerChunk; ++i) {
            long& mine = buffers[std::size_t(d)][std::size_t(i)];
            mine = model.isReduceScatter(step) ? mine + left[std::size_t(i)] : left[std::size_t(i)];
        }
    }
}

// A finished LeNet run on `devices` CPU devices: what the Scaling tab predicts from.
dp::RunRecord lenetRecord(int devices)
{
    dp::RunRecord record;
    record.id = "lenet-" + std::to_string(devices);
    record.status = dp::RunStatus::finished;
    record.config.model = "lenet";
    record.config.batch_size = 256;
    record.config.limit_train = 8192;
    for (int device = 0; device < devices; ++device)
        record.config.devices.push_back("cpu:" + std::to_string(device));
    dp::EpochMetrics epoch;
    epoch.epoch = 1;
    epoch.seconds = 2.0 / devices;
    record.epochs = {epoch, epoch};
    record.epochs[1].epoch = 2;
    return record;
}

}  // namespace

class TestRingAllReduce : public QObject {
    Q_OBJECT

private slots:
    void everyDeviceEndsWithTheFullSum_data()
    {
        QTest::addColumn<int>("devices");
        for (int n = 2; n <= 8; ++n)
            QTest::addRow("%d devices", n) << n;
    }

    void everyDeviceEndsWithTheFullSum()
    {
        QFETCH(int, devices);
        const RingAllReduceModel model(devices, {std::size_t(devices * kFloatsPerChunk)});
        QCOMPARE(model.steps(), 2 * (devices - 1));
        auto buffers = gradients(devices);
        std::vector<long> sum(buffers[0].size(), 0);
        for (const auto& buffer : buffers)
            for (std::size_t i = 0; i < sum.size(); ++i)
                sum[i] += buffer[i];

        for (int step = 0; step < model.steps(); ++step) {
            // Every link works: each device sends a different chunk, the one its right neighbour receives.
            std::vector<int> sent;
            for (int d = 0; d < devices; ++d) {
                QCOMPARE(model.chunkSent(d, step), model.chunkReceived(model.rightNeighbour(d), step));
                sent.push_back(model.chunkSent(d, step));
            }
            std::sort(sent.begin(), sent.end());
            QVERIFY(std::adjacent_find(sent.begin(), sent.end()) == sent.end());
            runStep(model, step, buffers);
            if (step == devices - 2) {
                // After reduce-scatter, device r holds the full sum of chunk r+1 (mod N).
                for (int d = 0; d < devices; ++d) {
                    const int chunk = (d + 1) % devices;
                    for (int i = chunk * kFloatsPerChunk; i < (chunk + 1) * kFloatsPerChunk; ++i)
                        QCOMPARE(buffers[std::size_t(d)][std::size_t(i)], sum[std::size_t(i)]);
                    QCOMPARE(model.contributors(d, chunk, step + 1), model.allDevices());
                }
            }
        }
        for (int d = 0; d < devices; ++d)
            QCOMPARE(buffers[std::size_t(d)], sum);
        for (int d = 0; d < devices; ++d) {
            for (int c = 0; c < devices; ++c) {
                QCOMPARE(model.contributors(d, c, 0), std::uint32_t(1) << d);
                QCOMPARE(model.contributors(d, c, model.steps()), model.allDevices());
            }
        }
    }

    void partialSumsAreLabelledByTheirDevices()
    {
        const RingAllReduceModel model(4, {12});
        // Step 1: device 1 adds chunk 0 from device 0.
        QCOMPARE(model.chunkReceived(1, 0), 0);
        QCOMPARE(contributorsLabel(model.contributors(1, 0, 1), 4), std::string("0+1"));
        QCOMPARE(contributorsLabel(model.contributors(1, 1, 1), 4), std::string("1"));
        QCOMPARE(contributorsLabel(model.allDevices(), 4), std::string("all"));
        QCOMPARE(contributorsLabel(0b1111, 8), std::string("4 of 8"));
    }

    void ringLinksCarryTwoNMinusOneOverNOfTheBuffer_data()
    {
        everyDeviceEndsWithTheFullSum_data();
    }

    void ringLinksCarryTwoNMinusOneOverNOfTheBuffer()
    {
        QFETCH(int, devices);
        const auto n = std::size_t(devices);
        const RingAllReduceModel model(devices, {n * 10, n * 7});
        const std::size_t buffer = n * 17 * sizeof(float);
        QCOMPARE(model.bufferBytes(), buffer);
        QCOMPARE(model.ringBytesPerLink(), 2 * (n - 1) * buffer / n);
        for (int step = 0; step < model.steps(); ++step)
            for (int d = 0; d < devices; ++d)
                QCOMPARE(model.ringLinkBytes(d, step), buffer / n);
        // Naive: device 0 takes in N-1 buffers and sends the sum out N-1 times.
        QCOMPARE(model.naiveDeviceZeroLinkBytes(), 2 * (n - 1) * buffer);
        QCOMPARE(model.naiveOtherLinkBytes(), 2 * buffer);
        QCOMPARE(model.naiveTotalBytes(), 2 * (n - 1) * buffer);
        QCOMPARE(model.ringTotalBytes(), model.naiveTotalBytes());
    }

    void unevenBucketsAreCutAsTheEngineCutsThem()
    {
        // 10 floats on 4 devices: chunks of 2, 3, 2, 3 floats.
        const RingAllReduceModel model(4, {10});
        QCOMPARE(model.chunkBytes(0), 2 * sizeof(float));
        QCOMPARE(model.chunkBytes(1), 3 * sizeof(float));
        QCOMPARE(model.chunkBytes(0) + model.chunkBytes(1) + model.chunkBytes(2) + model.chunkBytes(3),
                 model.bufferBytes());
    }

    void aStepCostsEachBucketsLatencyAndItsChunk()
    {
        const RingAllReduceModel model(4, {400, 800});
        dp::LinkModel link;
        link.alpha = 1e-6;
        link.beta = 1e-9;
        // Two buckets: 2 latencies, and chunks of 100 + 200 floats.
        QVERIFY(std::abs(model.ringStepSeconds(link) - (2e-6 + 300 * sizeof(float) * 1e-9)) < 1e-12);
        QVERIFY(model.allReduceSeconds(dp::AllReduceStrategy::naive, link)
                > model.allReduceSeconds(dp::AllReduceStrategy::ring, link));
    }

    // nn.DataParallel's step: the parameters out of device 0, the outputs
    // in, their gradients out, the gradients in; all through device 0's link.
    void dataParallelMovesParametersAndOutputsThroughDeviceZero()
    {
        // 1,600 floats of gradients; a batch of 30 over 4 devices: 8, 8, 8, 6 rows of 10 outputs.
        const RingAllReduceModel model(4, {1000, 600}, 30, 10);
        QCOMPARE(model.bufferBytes(), std::size_t(6400));
        QCOMPARE(model.outputBytes(0), std::size_t(8 * 10 * 4));
        QCOMPARE(model.outputBytes(3), std::size_t(6 * 10 * 4));
        QCOMPARE(model.dataParallelDeviceZeroParameterBytes(), std::size_t(3 * 6400));
        QCOMPARE(model.dataParallelDeviceZeroOutputBytes(), std::size_t(22 * 10 * 4));
        QCOMPARE(model.dataParallelTotalBytes(), std::size_t(2 * 3 * 6400 + 2 * 22 * 40));
        // The same gradient bytes as naive's all-reduce, and the outputs on top.
        QCOMPARE(model.dataParallelTotalBytes() - model.naiveTotalBytes(), std::size_t(2 * 22 * 40));
        QCOMPARE(RingAllReduceModel::kDataParallelSteps, 4);

        // Timed as the scaling predictor costs it: more than naive's all-reduce alone.
        dp::LinkModel link;
        link.alpha = 1e-6;
        link.beta = 1e-9;
        QCOMPARE(model.dataParallelSeconds(link), dp::dataparallel_step_seconds(link, 4, 6400, 30 * 40));
        // The gradients reduced to device 0 (3 messages of 6400 bytes), the
        // parameters broadcast (3 more), a gather and a scatter of the outputs
        // (the engine's zero-padded batch of 1200 bytes, 3 messages each).
        const double expected = (3 * 1e-6 + 3 * 6400 * 1e-9) + (3 * 1e-6 + 3 * 6400 * 1e-9)
            + (3 * 1e-6 + 3 * 1200 * 1e-9) + (3 * 1e-6 + 3 * 1200 * 1e-9);
        QVERIFY2(std::abs(model.dataParallelSeconds(link) - expected) < 1e-12,
                 qPrintable(QString::number(model.dataParallelSeconds(link))));
    }

    void bucketsComeFromTheModelsParameters()
    {
        for (const char* name : {"lenet", "resnet18-narrow"}) {
            const auto buckets = gradientBucketFloats(name, 25);
            QCOMPARE(std::accumulate(buckets.begin(), buckets.end(), std::size_t(0)),
                     dp::model_info(name).parameters);
        }
        // A small cap splits ResNet-18/8 into several buckets, as the engine would.
        QVERIFY(gradientBucketFloats("resnet18-narrow", 0.05).size() > 1);
    }

    void viewStepsForwardAndBackAndNamesTheStep()
    {
        RingAllReduceView view;
        view.setRun(QStringLiteral("lenet"), 25, 4, 64, 10);
        QCOMPARE(view.model().devices(), 4);
        QCOMPARE(view.step(), 0);
        QVERIFY(view.stepText().contains(QStringLiteral("Before step 1 of 6")));
        view.stepForward();
        QCOMPARE(view.step(), 1);
        QVERIFY2(view.stepText().startsWith(QStringLiteral("Step 1 of 6, reduce")), qPrintable(view.stepText()));
        view.setStep(4);
        QVERIFY2(view.stepText().startsWith(QStringLiteral("Step 4 of 6, all")), qPrintable(view.stepText()));
        view.stepBack();
        QCOMPARE(view.step(), 3);
        QVERIFY(view.stepText().startsWith(QStringLiteral("Step 3 of 6")));
        view.setStep(99);
        QCOMPARE(view.step(), 6);
        QVERIFY(view.stepText().contains(QStringLiteral("every device holds the full sum")));
        view.setDevices(8);
        QCOMPARE(view.step(), 0);
        QCOMPARE(view.model().steps(), 14);
    }

    void viewClockUsesTheChosenLink()
    {
        RingAllReduceView view;
        auto* link = view.findChild<QComboBox*>(QStringLiteral("ringLinkCombo"));
        QVERIFY(link && link->count() > 1);
        link->setCurrentIndex(1);
        view.stepForward();
        const QString preset = link->currentText();
        QVERIFY2(view.stepText().contains(QStringLiteral(" on ") + preset), qPrintable(view.stepText()));
        QVERIFY(view.trafficText().contains(preset.toHtmlEscaped()));
        QVERIFY(view.trafficText().contains(QStringLiteral("Naive")));
        QVERIFY(view.trafficText().contains(QStringLiteral("DataParallel")));
    }

    void viewComparesDataParallelsTrafficForTheRunsBatch()
    {
        RingAllReduceView view;
        view.setRun(QStringLiteral("lenet"), 25, 2, 256, 10);
        const RingAllReduceModel& model = view.model();
        // 2 devices: device 0's link takes the other's 128 rows of outputs.
        QCOMPARE(model.dataParallelDeviceZeroOutputBytes(), std::size_t(128 * 10 * 4));
        const QString total = QLocale().formattedDataSize(qint64(model.dataParallelTotalBytes()), 1,
                                                          QLocale::DataSizeSIFormat);
        QVERIFY2(view.trafficText().contains(total), qPrintable(view.trafficText()));
        QVERIFY(view.trafficText().contains(QStringLiteral("the outputs of a batch of 256 samples")));
    }

    // The ring view and the Scaling tab share one measurement of this
    // machine's threads: a second view measures nothing, and both quote it.
    void viewsShareOneMeasurementOfTheThreads()
    {
        RingAllReduceView first;
        first.setRun(QStringLiteral("lenet"), 25, 3, 64, 10);
        QVERIFY(!dp::thread_link_cache().find(dp::AllReduceStrategy::ring, 3));
        first.show();
        first.stepForward();
        QVERIFY2(first.stepText().contains(QStringLiteral("measuring this machine's threads")),
                 qPrintable(first.stepText()));
        QTRY_VERIFY_WITH_TIMEOUT(dp::thread_link_cache().find(dp::AllReduceStrategy::naive, 3), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(first.stepText().contains(QStringLiteral(" on this machine")), 5000);
        const int taken = dp::thread_link_cache().measurements_taken();
        QCOMPARE(taken, 2);  // ring and naive (DataParallel's is naive's), once each

        RingAllReduceView second;
        second.setRun(QStringLiteral("lenet"), 25, 3, 64, 10);
        second.show();
        second.stepForward();
        QCOMPARE(second.stepText(), first.stepText());  // the same link, at once
        QTest::qWait(50);
        QCOMPARE(dp::thread_link_cache().measurements_taken(), taken);

        // The Scaling tab, predicting for 3 devices over this machine's
        // threads, quotes the same measurement: it measures its cores only.
        ScalingPredictionPage scaling;
        scaling.resize(900, 600);
        scaling.show();
        scaling.setRuns({{lenetRecord(1), Qt::blue}, {lenetRecord(3), Qt::red}});
        QTRY_VERIFY_WITH_TIMEOUT(!scaling.isMeasuring(), 60000);
        QCOMPARE(dp::thread_link_cache().measurements_taken(), taken);
        const std::string source = dp::thread_link_cache().find(dp::AllReduceStrategy::ring, 3)->link.source;
        const QString details = scaling.findChild<QLabel*>(QStringLiteral("predictionAssumptions"))->text();
        QVERIFY2(details.contains(QString::fromStdString(source).toHtmlEscaped()), qPrintable(details));
    }

    void viewPlaysOnItsOwn()
    {
        RingAllReduceView view;
        auto* speed = view.findChild<QComboBox*>(QStringLiteral("ringSpeedCombo"));
        QVERIFY(speed);
        speed->setCurrentIndex(speed->count() - 1);
        view.play();
        QVERIFY(view.isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(view.step() >= 1, 5000);
        view.pause();
        QVERIFY(!view.isPlaying());
    }

    void classroomShowsTheRunsModelAndDevices()
    {
        ClassroomPage page;
        dp::RunRecord record;
        record.config.model = "resnet18-narrow";
        record.config.devices = {"cpu:0", "cpu:1"};
        page.startRun(record, Qt::red);
        QCOMPARE(page.ringAllReduceView()->model().devices(), 2);
        const auto buckets = page.ringAllReduceView()->model().bucketFloats();
        QCOMPARE(std::accumulate(buckets.begin(), buckets.end(), std::size_t(0)),
                 dp::model_info("resnet18-narrow").parameters);
        // No devices named (every device of the machine): 4.
        record.config.devices.clear();
        page.startRun(record, Qt::red);
        QCOMPARE(page.ringAllReduceView()->model().devices(), 4);
    }
};

QTEST_MAIN(TestRingAllReduce)
#include "test_ring_allreduce.moc"
