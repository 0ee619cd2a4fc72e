// The thread link probed several times (scaling/scaling_probes.h): one probe
// on a shared machine read 38.9, 4.9 and 35.4 GB/s in three launches, so the
// Scaling tab takes the median of several and quotes their range. Timings
// are whatever this machine gives: only their order and sanity are asserted.
#include <QElapsedTimer>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/format.h"
#include "scaling/scaling_probes.h"

class TestThreadLinkProbes : public QObject {
    Q_OBJECT

private slots:
    void fiveProbesGiveAMedianWithinTheirRange()
    {
        QElapsedTimer timer;
        timer.start();
        const dp::ThreadLinkMeasurement measurement =
                dp::measure_thread_link_repeatedly(dp::AllReduceStrategy::ring, 2, 5);
        qInfo("5 probes took %lld ms", static_cast<long long>(timer.elapsed()));

        QCOMPARE(measurement.probes.size(), std::size_t(5));
        std::vector<double> bandwidths;
        for (const dp::ThreadLinkProbe& probe : measurement.probes) {
            // A fit swamped by other work's noise clamps its slope at 0 (the
            // probe's least squares): ctest -j2 beside a training test did.
            QVERIFY(probe.gigabytes_per_second() >= 0);
            QVERIFY(probe.link.beta >= 0);
            bandwidths.push_back(probe.gigabytes_per_second());
        }
        std::sort(bandwidths.begin(), bandwidths.end());
        // Five probes: the median is the third, the range the first and last.
        QCOMPARE(measurement.median_gigabytes_per_second(), bandwidths[2]);
        QCOMPARE(measurement.least_gigabytes_per_second(), bandwidths.front());
        QCOMPARE(measurement.most_gigabytes_per_second(), bandwidths.back());
        QVERIFY(measurement.least_gigabytes_per_second() <= measurement.median_gigabytes_per_second());
        QVERIFY(measurement.median_gigabytes_per_second() <= measurement.most_gigabytes_per_second());

        // The link is the median probe's bandwidth, not one probe's by chance.
        QCOMPARE(measurement.link.name, std::string("this machine's threads"));
        std::vector<double> betas;
        for (const dp::ThreadLinkProbe& probe : measurement.probes)
            betas.push_back(probe.link.beta);
        std::sort(betas.begin(), betas.end());
        QCOMPARE(measurement.link.beta, betas[2]);

        const std::string& source = measurement.link.source;
        const std::string range = dp::format("%.1f GB/s (%.1f-%.1f) over 5 probes",
                                             bandwidths[2], bandwidths.front(), bandwidths.back());
        QVERIFY2(source.find(range) != std::string::npos, source.c_str());
        // Flagged exactly when other processes kept the machine busy meanwhile.
        QCOMPARE(source.find("measured while the machine was busy") != std::string::npos,
                 measurement.load.busy());
    }

    void anEvenCountTakesTheMiddleTwosMean()
    {
        const dp::ThreadLinkMeasurement measurement =
                dp::measure_thread_link_repeatedly(dp::AllReduceStrategy::naive, 2, 2);
        QCOMPARE(measurement.probes.size(), std::size_t(2));
        const double mean = (measurement.probes[0].gigabytes_per_second()
                             + measurement.probes[1].gigabytes_per_second()) / 2;
        QVERIFY(qFuzzyCompare(measurement.median_gigabytes_per_second(), mean));
    }

    void theCacheMeasuresEachLinkOncePerProcess()
    {
        std::atomic<int> measured = 0;
        dp::ThreadLinkCache cache([&](dp::AllReduceStrategy algorithm, int devices) {
            ++measured;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            dp::ThreadLinkMeasurement measurement;
            measurement.link.beta = 1e-9 * devices;
            measurement.link.source = dp::all_reduce_strategy_name(algorithm);
            return measurement;
        });
        QVERIFY(!cache.find(dp::AllReduceStrategy::ring, 4));
        // Two callers at once (the Classroom and the Scaling tab): one measurement.
        dp::ThreadLinkMeasurement first, second;
        std::thread other([&] { first = cache.get(dp::AllReduceStrategy::ring, 4); });
        second = cache.get(dp::AllReduceStrategy::ring, 4);
        other.join();
        QCOMPARE(measured.load(), 1);
        QCOMPARE(cache.measurements_taken(), 1);
        QCOMPARE(first.link.beta, 4e-9);
        QCOMPARE(second.link.beta, 4e-9);
        QCOMPARE(cache.find(dp::AllReduceStrategy::ring, 4)->link.beta, 4e-9);
        cache.get(dp::AllReduceStrategy::ring, 4);
        QCOMPARE(measured.load(), 1);
        // Another strategy or device count is another link.
        QCOMPARE(cache.get(dp::AllReduceStrategy::naive, 4).link.source, std::string("naive"));
        QCOMPARE(cache.get(dp::AllReduceStrategy::ring, 2).link.beta, 2e-9);
        QCOMPARE(measured.load(), 3);
        // DataParallel sums its gradients with naive's all-reduce: its link.
        QCOMPARE(cache.get(dp::AllReduceStrategy::dataparallel, 4).link.source, std::string("naive"));
        QCOMPARE(measured.load(), 3);
    }

    void theCacheReportsAFailureAndTriesAgain()
    {
        int calls = 0;
        dp::ThreadLinkCache cache([&](dp::AllReduceStrategy, int) {
            if (++calls == 1)
                throw dp::Error("no threads today");
            return dp::ThreadLinkMeasurement{};
        });
        try {
            cache.get(dp::AllReduceStrategy::ring, 2);
            QFAIL("the failure was swallowed");
        } catch (const dp::Error& error) {
            QCOMPARE(std::string(error.what()), std::string("no threads today"));
        }
        QVERIFY(!cache.find(dp::AllReduceStrategy::ring, 2));
        cache.get(dp::AllReduceStrategy::ring, 2);
        QCOMPARE(calls, 2);
        QCOMPARE(cache.measurements_taken(), 2);
        QVERIFY(cache.find(dp::AllReduceStrategy::ring, 2));
    }

    void theProcessHasOneCache()
    {
        QCOMPARE(&dp::thread_link_cache(), &dp::thread_link_cache());
    }

    void noProbesIsRefused()
    {
        QVERIFY_THROWS_EXCEPTION(dp::Error,
                                 dp::measure_thread_link_repeatedly(dp::AllReduceStrategy::ring, 2, 0));
    }
};

QTEST_GUILESS_MAIN(TestThreadLinkProbes)
#include "test_thread_link_probes.moc"
