// The memory estimate's inputs (D36, issue 32): what this process may still
// take reads the cgroup's limit as well as MemAvailable (a container saw the
// whole machine's memory), and the estimate's products never wrap.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <filesystem>

#include "core/error.h"
#include "train/memory_estimate.h"

namespace {

void write_text(const QString& path, const QByteArray& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

std::filesystem::path fs_path(const QString& path) { return path.toStdString(); }

}  // namespace

class TestMemoryEstimate : public QObject {
    Q_OBJECT

private slots:
    void cgroupV2LimitLessUsage() {
        QTemporaryDir root;
        write_text(root.filePath("memory.max"), "4294967296\n");
        write_text(root.filePath("memory.current"), "1073741824\n");
        QCOMPARE(dp::cgroup_memory_headroom({fs_path(root.path())}), std::size_t(3) << 30);
    }

    void cgroupV1LimitLessUsageTheLeastOfSeveral() {
        QTemporaryDir root;
        QVERIFY(QDir(root.path()).mkpath("parent/child"));
        write_text(root.filePath("parent/memory.limit_in_bytes"), "8589934592\n");
        write_text(root.filePath("parent/memory.usage_in_bytes"), "0\n");
        write_text(root.filePath("parent/child/memory.limit_in_bytes"), "2147483648\n");
        write_text(root.filePath("parent/child/memory.usage_in_bytes"), "1073741824\n");
        QCOMPARE(dp::cgroup_memory_headroom({fs_path(root.filePath("parent")),
                                             fs_path(root.filePath("parent/child"))}),
                 std::size_t(1) << 30);
    }

    void noLimitIsNothing() {
        QTemporaryDir root;
        QVERIFY(QDir(root.path()).mkpath("v1"));
        write_text(root.filePath("memory.max"), "max\n");
        write_text(root.filePath("v1/memory.limit_in_bytes"), "9223372036854771712\n");
        QVERIFY(!dp::cgroup_memory_headroom({fs_path(root.path()), fs_path(root.filePath("v1")),
                                             fs_path(root.filePath("missing"))}));
    }

    // Usage above the limit (reclaim pending) left 2^64 - x bytes "free".
    void usageAboveTheLimitLeavesNothing() {
        QTemporaryDir root;
        write_text(root.filePath("memory.max"), "1000\n");
        write_text(root.filePath("memory.current"), "5000\n");
        QCOMPARE(dp::cgroup_memory_headroom({fs_path(root.path())}), std::size_t(0));
    }

    // 2^31 - 1 samples of 2^31 - 1 features wrapped to "18446744056.5 GB".
    void estimateOfHugeDataDoesNotWrap() {
        const dp::MemoryEstimate estimate{.data_bytes = 2 * dp::data_set_bytes(2147483647, 2147483647)};
        QVERIFY(estimate.total() > 3.6e19);
        try {
            dp::require_memory(estimate, std::size_t(1) << 40);
            QFAIL("a run of 3.7e19 bytes fits in 1 TB");
        } catch (const dp::Error& error) {
            QVERIFY2(QString(error.what()).contains("about 36893488130.2 GB"), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestMemoryEstimate)
#include "test_memory_estimate.moc"
