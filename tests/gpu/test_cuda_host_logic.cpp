// The CUDA backend's logic that needs no GPU, tested on every machine: the
// choice of cuDNN algorithms, the options from the environment, the error
// and device-description wording, and device selection when no GPU is found.
#include <QtTest>

#include <vector>

#include "backend/algorithm_choice.h"
#include "backend/cuda_backend_options.h"
#include "platform/cuda/device_call_error.h"
#include "core/error.h"
#include "devices/device.h"

namespace {

constexpr std::size_t MiB = 1 << 20;

bool has_gpu() {
    for (const auto& device : dp::available_devices())
        if (device.kind == dp::DeviceKind::cuda) return true;
    return false;
}

}  // namespace

class TestCudaHostLogic : public QObject {
    Q_OBJECT

private slots:
    void choosesTheFastestAlgorithmWithinTheWorkspaceCap() {
        const std::vector<dp::AlgorithmTiming> timings{
            {.algorithm = 0, .ran = true, .milliseconds = 3.0f, .workspace_bytes = 0, .deterministic = true},
            {.algorithm = 1, .ran = true, .milliseconds = 1.0f, .workspace_bytes = 512 * MiB, .deterministic = true},
            {.algorithm = 2, .ran = true, .milliseconds = 2.0f, .workspace_bytes = 8 * MiB, .deterministic = false},
            {.algorithm = 3, .ran = false, .milliseconds = 0.5f, .workspace_bytes = 0, .deterministic = true},
        };
        QCOMPARE(dp::choose_algorithm(timings, 1024 * MiB, false), std::optional<std::size_t>(1));
        QCOMPARE(dp::choose_algorithm(timings, 256 * MiB, false), std::optional<std::size_t>(2));
        QCOMPARE(dp::choose_algorithm(timings, 256 * MiB, true), std::optional<std::size_t>(0));
        QCOMPARE(dp::choose_algorithm(timings, 8 * MiB, false), std::optional<std::size_t>(2));
    }

    void equalTimesKeepTheEarlierAlgorithm() {
        const std::vector<dp::AlgorithmTiming> timings{
            {.algorithm = 5, .ran = true, .milliseconds = 1.0f},
            {.algorithm = 6, .ran = true, .milliseconds = 1.0f},
        };
        QCOMPARE(dp::choose_algorithm(timings, 0, false), std::optional<std::size_t>(0));
    }

    void noQualifyingAlgorithmIsNone() {
        const std::vector<dp::AlgorithmTiming> timings{
            {.algorithm = 0, .ran = true, .milliseconds = 1.0f, .workspace_bytes = 2 * MiB, .deterministic = false},
        };
        QVERIFY(!dp::choose_algorithm(timings, MiB, false));
        QVERIFY(!dp::choose_algorithm(timings, 4 * MiB, true));
        QVERIFY(!dp::choose_algorithm({}, MiB, false));
        QCOMPARE(dp::no_algorithm_message("convolution forward", "conv2d 1x1x5x5", 8 * MiB, true),
                 std::string("no deterministic convolution forward algorithm for conv2d 1x1x5x5 "
                             "within the 8 MiB workspace cap (raise DP_CUDNN_WORKSPACE_MB or unset "
                             "DP_CUDA_DETERMINISTIC)"));
    }

    void optionsComeFromTheEnvironment() {
        qunsetenv("DP_CUDA_DETERMINISTIC");
        qunsetenv("DP_CUDA_TF32");
        qunsetenv("DP_CUDNN_WORKSPACE_MB");
        auto defaults = dp::cuda_backend_options_from_environment();
        QVERIFY(!defaults.deterministic);
        QVERIFY(!defaults.allow_tf32);  // TF32 only when asked
        QCOMPARE(defaults.workspace_bytes, 256 * MiB);

        qputenv("DP_CUDA_DETERMINISTIC", "1");
        qputenv("DP_CUDA_TF32", "on");
        qputenv("DP_CUDNN_WORKSPACE_MB", "8");
        auto set = dp::cuda_backend_options_from_environment();
        QVERIFY(set.deterministic);
        QVERIFY(set.allow_tf32);
        QCOMPARE(set.workspace_bytes, 8 * MiB);

        qputenv("DP_CUDNN_WORKSPACE_MB", "lots");
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::cuda_backend_options_from_environment());
        qputenv("DP_CUDNN_WORKSPACE_MB", "8");
        qputenv("DP_CUDA_TF32", "maybe");
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::cuda_backend_options_from_environment());
        qunsetenv("DP_CUDA_DETERMINISTIC");
        qunsetenv("DP_CUDA_TF32");
        qunsetenv("DP_CUDNN_WORKSPACE_MB");
    }

    void callErrorsNameFunctionPlaceAndDevice() {
        QCOMPARE(dp::device_call_error("cudnnConvolutionForward(handle, &one, x)",
                                       "/work/main/engine/backend/cuda/cudnn_convolution.cpp", 42,
                                       1, "CUDNN_STATUS_BAD_PARAM"),
                 std::string("cudnnConvolutionForward failed on cuda:1 "
                             "(engine/backend/cuda/cudnn_convolution.cpp:42): CUDNN_STATUS_BAD_PARAM"));
        QCOMPARE(dp::device_call_error("ncclGetUniqueId(&id)", "x.cpp", 7, -1, "unhandled system error"),
                 std::string("ncclGetUniqueId failed on no device (x.cpp:7): unhandled system error"));
    }

    void gpuDescriptionShowsNameMemoryAndSms() {
        QCOMPARE(dp::cuda_device_description("NVIDIA H100 80GB HBM3", 85'045'870'592, 132),
                 std::string("NVIDIA H100 80GB HBM3, 79.2 GiB, 132 SMs"));
    }

    // Listing devices on a machine without a GPU or driver neither fails
    // nor prints; asking for a GPU there is a one-line error.
    void aMissingGpuIsAOneLineError() {
        if (has_gpu()) QSKIP("this machine has a GPU");
        for (const auto& device : dp::available_devices()) QVERIFY(device.kind == dp::DeviceKind::cpu);
        try {
            dp::select_devices({"cuda:0"});
            QFAIL("cuda:0 was selected on a machine without a GPU");
        } catch (const dp::Error& error) {
            const std::string message = error.what();
            QVERIFY2(message.starts_with("no device cuda:0 on this machine: "), error.what());
            QVERIFY2(message.find("cpu:0") != std::string::npos, error.what());
            QVERIFY2(message.find('\n') == std::string::npos, error.what());
        }
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::select_devices({"cuda:all"}));
        QCOMPARE(dp::select_devices({}).front().kind, dp::DeviceKind::cpu);
    }

    // "x2" asks for replicas sharing a device (what a one-GPU machine runs
    // the multi-device path with): ids "#k", the device's cores or GPU.
    void replicasShareTheirDevice() {
        const auto replicas = dp::select_devices({"cpu:0x2"});
        QCOMPARE(replicas.size(), std::size_t(2));
        QCOMPARE(replicas[0].id, std::string("cpu:0#0"));
        QCOMPARE(replicas[1].id, std::string("cpu:0#1"));
        QCOMPARE(replicas[1].replica, 1);
        QCOMPARE(replicas[0].cores, replicas[1].cores);
        QCOMPARE(replicas[1].cores, dp::select_devices({"cpu:0"})[0].cores);
        // A record's ids select the same replicas again; x1 is the device itself.
        QCOMPARE(dp::select_devices({"cpu:0#1"})[0].id, std::string("cpu:0#1"));
        QCOMPARE(dp::select_devices({"cpu:0x1"})[0].id, std::string("cpu:0"));
        QCOMPARE(dp::select_devices({"cpu:0x2", "cpu:0#2"}).size(), std::size_t(3));
    }

    // Each bad list is one line naming the entry.
    void badDeviceListsAreNamed_data() {
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty entry") << QStringList{"cpu:0", ""} << "an empty device";
        QTest::newRow("blank entry") << QStringList{"  "} << "an empty device";
        QTest::newRow("all in a list") << QStringList{"cpu:all", "cpu:0"} << "cpu:all stands for";
        QTest::newRow("no replicas") << QStringList{"cpu:0x0"} << "replica count must be from 1 to 16";
        QTest::newRow("too many replicas") << QStringList{"cpu:0x17"} << "replica count must be from 1 to 16";
        QTest::newRow("replica number") << QStringList{"cpu:0#99"} << "replica number must be from 0 to 15";
        QTest::newRow("twice as replica") << QStringList{"cpu:0x2", "cpu:0#1"} << "cpu:0#1 is listed twice";
        QTest::newRow("unknown base") << QStringList{"cpu:9999x2"} << "no device cpu:9999 on this machine";
    }
    void badDeviceListsAreNamed() {
        QFETCH(QStringList, ids);
        QFETCH(QString, message);
        std::vector<std::string> list;
        for (const QString& id : ids) list.push_back(id.toStdString());
        try {
            dp::select_devices(list);
            QFAIL("accepted");
        } catch (const dp::Error& error) {
            QVERIFY2(QString(error.what()).contains(message), error.what());
            QVERIFY2(!QString(error.what()).contains('\n'), error.what());
        }
    }

    // Spaces around an entry are not part of its name.
    void entriesAreTrimmed() {
        QCOMPARE(dp::select_devices({" cpu:0 "})[0].id, std::string("cpu:0"));
    }

    void cpuAndGpuDevicesDoNotMix() {
        if (!has_gpu()) QSKIP("needs a GPU");
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::select_devices({"cuda:0", "cpu:0"}));
        QCOMPARE(dp::select_devices({}).front().kind, dp::DeviceKind::cuda);
        QCOMPARE(dp::select_devices({"cpu:all"}).front().kind, dp::DeviceKind::cpu);
    }
};

QTEST_APPLESS_MAIN(TestCudaHostLogic)
#include "test_cuda_host_logic.moc"
