// What a comparison flags as measured on a busy machine: the cores other
// processes kept busy, from two /proc readings (core/machine_load.h).
#include <QtTest>

#include <unistd.h>

#include <cstdint>
#include <vector>

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

    // Issue 41: each rank of a one-node MPI job counted the others as other
    // processes, and every such job was flagged busy. Their CPU time counts
    // as the run's own; a process that is gone counts nothing.
    void theJobsOtherProcessesCountAsOwn()
    {
        QProcess sibling;  // some CPU time, then waits to be ended
        sibling.start(QStringLiteral("/bin/sh"),
                      {QStringLiteral("-c"),
                       QStringLiteral("i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; echo done; read x")});
        QVERIFY(sibling.waitForStarted());
        QVERIFY(sibling.waitForReadyRead(60000));
        const std::int64_t pid = sibling.processId();
        const dp::CpuClock alone = dp::read_cpu_clock();
        const dp::CpuClock withSibling = dp::read_cpu_clock(std::vector<std::int64_t>{pid});
        sibling.closeWriteChannel();
        QVERIFY(sibling.waitForFinished());
        QVERIFY(withSibling.known);
        // The loop takes tenths of a CPU-second; this process, between two
        // readings, far less than the 0.05 s asked.
        QVERIFY2(withSibling.own >= alone.own + 0.05,
                 qPrintable(QStringLiteral("%1 vs %2").arg(withSibling.own).arg(alone.own)));
        const dp::CpuClock gone = dp::read_cpu_clock(std::vector<std::int64_t>{pid});
        QVERIFY(gone.known);
        QVERIFY(gone.own <= withSibling.own - 0.05);
    }
};

QTEST_GUILESS_MAIN(TestMachineLoad)
#include "test_machine_load.moc"
