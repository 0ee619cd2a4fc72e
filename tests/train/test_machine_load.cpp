// What a comparison flags as measured on a busy machine: the cores other
// processes kept busy, from two /proc readings (core/machine_load.h).
#include <QtTest>

#include <unistd.h>

#include "core/machine_load.h"

class TestMachineLoad : public QObject {
    Q_OBJECT

private slots:
    void otherProcessesCoresAreTheBusyTimeLessOurOwn()
    {
        dp::CpuClock from, to;
        from.known = to.known = true;
        to.wall = 10;               // 10 s apart
        to.machine_busy = 25;       // 25 CPU-seconds on the machine...
        to.own = 15;                // ...15 of them ours
        to.load_average = 2.5;
        const dp::MachineLoad load = dp::machine_load_between(from, to);
        QCOMPARE(load.other_cores, 1.0);
        QCOMPARE(load.load_average, 2.5);
        QCOMPARE(load.cores, int(::sysconf(_SC_NPROCESSORS_ONLN)));
        QCOMPARE(load.busy(), 1.0 > 0.2 * load.cores);
        to.machine_busy = 15;  // nothing but us
        QVERIFY(!dp::machine_load_between(from, to).busy());
        to.known = false;  // no /proc: never flagged
        to.machine_busy = 1000;
        QVERIFY(!dp::machine_load_between(from, to).busy());
    }

    void theClockReadsThisMachine()
    {
        const dp::CpuClock first = dp::read_cpu_clock();
        QVERIFY(first.known);
        volatile double sink = 0;
        for (int i = 0; i < 20'000'000; ++i) sink = sink + i;  // some CPU time of our own
        const dp::CpuClock second = dp::read_cpu_clock();
        QVERIFY(second.own >= first.own && second.machine_busy >= first.machine_busy);
        QVERIFY(second.wall > first.wall);
        QVERIFY(dp::machine_load_between(first, second).other_cores >= 0);
    }
};

QTEST_GUILESS_MAIN(TestMachineLoad)
#include "test_machine_load.moc"
