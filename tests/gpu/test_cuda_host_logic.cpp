// The CUDA backend's logic that needs no GPU, tested on every machine: the
// choice of cuDNN algorithms, the options from the environment, the error
// and device-description wording, and device selection when no GPU is found.
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

#include "backend/algorithm_choice.h"
#include "backend/cuda_backend_options.h"
#include "backend/reference/reference_backend.h"
#include "backend/step_graph.h"
#include "platform/cuda/device_call_error.h"
#include "core/error.h"
#include "devices/device.h"
#include "train/step_graph_request.h"

namespace {

constexpr std::size_t MiB = 1 << 20;

bool has_gpu() {
    for (const auto& device : dp::available_devices())
        if (device.kind == dp::DeviceKind::cuda) return true;
    return false;
}

}  // namespace

// Find's rules with a workspace cap, deterministic or not.
dp::AlgorithmRules rules(std::size_t workspace_cap, bool deterministic_only) {
    return {.workspace_cap = workspace_cap, .deterministic_only = deterministic_only};
}

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
        QCOMPARE(dp::choose_algorithm(timings, rules(1024 * MiB, false)), std::optional<std::size_t>(1));
        QCOMPARE(dp::choose_algorithm(timings, rules(256 * MiB, false)), std::optional<std::size_t>(2));
        QCOMPARE(dp::choose_algorithm(timings, rules(256 * MiB, true)), std::optional<std::size_t>(0));
        QCOMPARE(dp::choose_algorithm(timings, rules(8 * MiB, false)), std::optional<std::size_t>(2));
    }

    void equalTimesKeepTheEarlierAlgorithm() {
        const std::vector<dp::AlgorithmTiming> timings{
            {.algorithm = 5, .ran = true, .milliseconds = 1.0f},
            {.algorithm = 6, .ran = true, .milliseconds = 1.0f},
        };
        QCOMPARE(dp::choose_algorithm(timings, rules(0, false)), std::optional<std::size_t>(0));
    }

    void noQualifyingAlgorithmIsNone() {
        const std::vector<dp::AlgorithmTiming> timings{
            {.algorithm = 0, .ran = true, .milliseconds = 1.0f, .workspace_bytes = 2 * MiB, .deterministic = false},
        };
        QVERIFY(!dp::choose_algorithm(timings, rules(MiB, false)));
        QVERIFY(!dp::choose_algorithm(timings, rules(4 * MiB, true)));
        QVERIFY(!dp::choose_algorithm(std::vector<dp::AlgorithmTiming>{}, rules(MiB, false)));
        QCOMPARE(dp::no_algorithm_message("convolution forward", "conv2d 1x1x5x5",
                                          {.workspace_cap = 8 * MiB, .deterministic_only = true,
                                           .transforms = false}),
                 std::string("no deterministic convolution forward algorithm for conv2d 1x1x5x5 "
                             "within the 8 MiB workspace cap (raise DP_CUDNN_WORKSPACE_MB, unset "
                             "DP_CUDA_DETERMINISTIC or set DP_CUDNN_FP32_TRANSFORMS=1)"));
    }

    // fp32 leaves FFT and Winograd out unless asked, and never counts a
    // timing cuDNN took with tensor-op (TF32) math.
    void fp32SkipsTransformsAndTensorOpTimings() {
        const std::vector<dp::AlgorithmTiming> timings{
            {.algorithm = 1, .ran = true, .milliseconds = 3.0f},
            {.algorithm = 4, .ran = true, .milliseconds = 1.0f, .transform = true},
            {.algorithm = 0, .ran = true, .milliseconds = 2.0f, .tensor_op_timing = true},
        };
        QCOMPARE(dp::choose_algorithm(timings, {.transforms = true}), std::optional<std::size_t>(1));
        QCOMPARE(dp::choose_algorithm(timings, {.transforms = false}), std::optional<std::size_t>(2));
        QCOMPARE(dp::choose_algorithm(timings, {.transforms = false, .fma_only = true}),
                 std::optional<std::size_t>(0));
        for (int algorithm : {4, 5, 6, 7}) QVERIFY(dp::is_transform_algorithm("forward", algorithm));
        for (int algorithm : {0, 1, 2, 3}) QVERIFY(!dp::is_transform_algorithm("forward", algorithm));
        for (int algorithm : {2, 3, 4, 5}) QVERIFY(dp::is_transform_algorithm("backward_data", algorithm));
        for (int algorithm : {0, 1}) QVERIFY(!dp::is_transform_algorithm("backward_data", algorithm));
        for (int algorithm : {2, 4, 5, 6}) QVERIFY(dp::is_transform_algorithm("backward_weights", algorithm));
        for (int algorithm : {0, 1, 3}) QVERIFY(!dp::is_transform_algorithm("backward_weights", algorithm));
    }

    // The precision decides a convolution's math, the cache key names it,
    // and a cached choice with other math fails instead of running: an fp32
    // run never takes TF32.
    void fp32ConvolutionsRunWithFmaMath() {
        dp::CudaBackendOptions fp32;
        QCOMPARE(dp::conv_math(fp32), dp::ConvMath::fma);
        QCOMPARE(dp::conv_math_name(fp32), std::string("fma"));
        fp32.fp32_transforms = true;
        QCOMPARE(dp::conv_math_name(fp32), std::string("fma+transforms"));
        QCOMPARE(dp::conv_math({.allow_tf32 = true}), dp::ConvMath::tensor_ops);
        QCOMPARE(dp::conv_math({.bf16 = true}), dp::ConvMath::tensor_ops);
        QCOMPARE(dp::conv_math_name({.allow_tf32 = true}), std::string("tf32"));

        const int fma_code = dp::encode_conv_choice(6, dp::ConvMath::fma);
        QCOMPARE(dp::decode_conv_choice(fma_code, dp::ConvMath::fma, "key"), 6);
        const int tensor_code = dp::encode_conv_choice(6, dp::ConvMath::tensor_ops);
        QCOMPARE(dp::decode_conv_choice(tensor_code, dp::ConvMath::tensor_ops, "key"), 6);
        for (const int bad : {tensor_code, -1, 4 * 6 + 3})
            try {
                dp::decode_conv_choice(bad, dp::ConvMath::fma, "cudnn 90100 fma | forward");
                QFAIL("an fp32 pass took a choice without FMA math");
            } catch (const dp::Error& error) {
                QVERIFY2(QString(error.what()).contains("--retune"), error.what());
            }
    }

    void optionsComeFromTheEnvironment() {
        qunsetenv("DP_CUDA_DETERMINISTIC");
        qunsetenv("DP_CUDA_TF32");
        qunsetenv("DP_CUDNN_WORKSPACE_MB");
        qunsetenv("DP_CUDNN_FP32_TRANSFORMS");
        auto defaults = dp::cuda_backend_options_from_environment();
        QVERIFY(!defaults.deterministic);
        QVERIFY(!defaults.allow_tf32);  // TF32 only when asked
        QVERIFY(!defaults.fp32_transforms);
        QCOMPARE(defaults.workspace_bytes, 256 * MiB);

        qputenv("DP_CUDA_DETERMINISTIC", "1");
        qputenv("DP_CUDA_TF32", "on");
        qputenv("DP_CUDNN_WORKSPACE_MB", "8");
        qputenv("DP_CUDNN_FP32_TRANSFORMS", "1");
        auto set = dp::cuda_backend_options_from_environment();
        QVERIFY(set.fp32_transforms);
        qunsetenv("DP_CUDNN_FP32_TRANSFORMS");
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

    // DP_CUDA_BATCH_NORM picks cuDNN's BatchNorm (either mode) or ours;
    // DP_CUDA_GRAPHS switches graphs on; other values are refused by name.
    void batchNormAndGraphSwitchesFromTheEnvironment() {
        qunsetenv("DP_CUDA_BATCH_NORM");
        qunsetenv("DP_CUDA_GRAPHS");
        const auto defaults = dp::cuda_backend_options_from_environment();
        QVERIFY(defaults.batch_norm == dp::CudaBatchNorm::own);
        QVERIFY(!defaults.step_graphs);  // off until a GPU run has measured them
        qputenv("DP_CUDA_BATCH_NORM", "cudnn");
        qputenv("DP_CUDA_GRAPHS", "1");
        const auto set = dp::cuda_backend_options_from_environment();
        QVERIFY(set.batch_norm == dp::CudaBatchNorm::cudnn);
        QVERIFY(set.step_graphs);
        qputenv("DP_CUDA_BATCH_NORM", "cudnn-persistent");
        QVERIFY(dp::cuda_backend_options_from_environment().batch_norm ==
                dp::CudaBatchNorm::cudnn_persistent);
        qputenv("DP_CUDA_BATCH_NORM", "fast");
        try {
            dp::cuda_backend_options_from_environment();
            QFAIL("DP_CUDA_BATCH_NORM=fast was taken");
        } catch (const dp::Error& error) {
            QCOMPARE(std::string(error.what()),
                     std::string("DP_CUDA_BATCH_NORM must be own, cudnn or cudnn-persistent (got 'fast')"));
        }
        qunsetenv("DP_CUDA_BATCH_NORM");
        qputenv("DP_CUDA_GRAPHS", "yes");
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::cuda_backend_options_from_environment());
        qunsetenv("DP_CUDA_GRAPHS");
    }

    // A graph key changes exactly when a replay would enqueue other work:
    // any shape, buffer or by-value kernel argument; never for what lives in
    // device memory (the batch's data, the parameters' values) or the step number.
    void stepGraphKeyChangesExactlyWhenAReplayWouldBeWrong() {
        float images = 0, parameters = 0, gradients = 0;
        const dp::StepGraphKey base{.rows = 256, .global_batch = 256, .micro_batches = 1,
                                    .lr_bits = dp::float_bits(0.1f),
                                    .buffers = {&images, &parameters, &gradients}};
        QVERIFY(base == dp::StepGraphKey(base));
        std::vector<dp::StepGraphKey> changed(8, base);
        changed[0].rows = 96;                // the last partial batch
        changed[1].global_batch = 255;       // same shard rows, another grad scale
        changed[2].micro_batches = 2;
        changed[3].lr_bits = dp::float_bits(0.1f * 1.0000001f);  // one ulp: a warm-up's next lr
        changed[4].weight_decay_bits = dp::float_bits(5e-4f);
        changed[5].dropout_step = 1;
        changed[6].buffers = {&images, &gradients, &parameters};
        changed[7].buffers[3] = &images;
        for (std::size_t i = 0; i < changed.size(); ++i)
            QVERIFY2(!(changed[i] == base), qPrintable(QString("change %1").arg(i)));
        QVERIFY(dp::float_bits(0.1f * 1.0000001f) != dp::float_bits(0.1f));
    }

    // The first step of a key warms up, the second is captured, later ones
    // replay; the last partial batch gets a graph of its own.
    void stepGraphsWarmUpCaptureReplay() {
        using A = dp::StepGraphAction;
        dp::StepGraphBook book(true);
        const dp::StepGraphRequest full{.key = {.rows = 256, .global_batch = 256}, .capturable = true};
        const dp::StepGraphRequest last{.key = {.rows = 96, .global_batch = 96}, .capturable = true};
        QCOMPARE(book.decide(full), A::warm_up);
        QCOMPARE(book.decide(full), A::capture);
        QCOMPARE(book.graph_index(), std::size_t(0));
        book.captured(full.key, true);
        QCOMPARE(book.decide(full), A::replay);
        QCOMPARE(book.decide(last), A::warm_up);  // an epoch's end
        QCOMPARE(book.decide(full), A::replay);
        QCOMPARE(book.graph_index(), std::size_t(0));
        QCOMPARE(book.decide(last), A::capture);
        QCOMPARE(book.graph_index(), std::size_t(1));
        book.captured(last.key, true);
        QCOMPARE(book.decide(last), A::replay);
        QCOMPARE(book.graph_index(), std::size_t(1));
        QCOMPARE(book.decide(full), A::replay);
        QCOMPARE(book.graph_index(), std::size_t(0));
        QCOMPARE(book.graphs(), std::size_t(2));
        // Full: a third key (another lr) runs eagerly after its warm-up.
        dp::StepGraphRequest other = full;
        other.key.lr_bits = 1;
        QCOMPARE(book.decide(other), A::warm_up);
        QCOMPARE(book.decide(other), A::eager);
        QCOMPARE(std::string(dp::step_graph_action_name(A::replay)), std::string("replay"));
    }

    // Graphs off, or a step that cannot be captured (today's, which reads
    // its loss mid-step), run eagerly; so does a key whose capture failed,
    // while another key still captures; keys that never repeat (a
    // learning-rate warm-up, dropout's step) never capture.
    void stepGraphsFallBackToEager() {
        using A = dp::StepGraphAction;
        const dp::StepGraphRequest step{.key = {.rows = 64, .global_batch = 64}, .capturable = true};
        dp::StepGraphBook off(false);
        for (int i = 0; i < 3; ++i) QCOMPARE(off.decide(step), A::eager);
        dp::StepGraphBook book(true);
        dp::StepGraphRequest syncing = step;
        syncing.capturable = false;
        for (int i = 0; i < 3; ++i) QCOMPARE(book.decide(syncing), A::eager);
        QCOMPARE(book.decide(step), A::warm_up);
        QCOMPARE(book.decide(step), A::capture);
        book.captured(step.key, false);
        for (int i = 0; i < 3; ++i) QCOMPARE(book.decide(step), A::eager);
        dp::StepGraphRequest last = step;
        last.key.rows = 32;
        QCOMPARE(book.decide(last), A::warm_up);
        QCOMPARE(book.decide(last), A::capture);
        QCOMPARE(book.graph_index(), std::size_t(0));  // the failed key holds no slot
        dp::StepGraphBook ramp(true);
        for (int i = 0; i < 40; ++i) {
            dp::StepGraphRequest warming = step;
            warming.key.lr_bits = dp::float_bits(0.01f * float(i + 1));
            QCOMPARE(ramp.decide(warming), A::warm_up);
        }
        QCOMPARE(ramp.graphs(), std::size_t(0));
    }

    // A backend without graphs runs the step's work once, eagerly.
    void backendWithoutGraphsRunsTheStep() {
        dp::ReferenceBackend backend;
        int runs = 0;
        auto work = [&runs] { ++runs; };
        const dp::StepGraphRequest request{.key = {.rows = 8}, .capturable = true};
        for (int i = 0; i < 3; ++i)
            QCOMPARE(backend.run_step(request, work), dp::StepGraphAction::eager);
        QCOMPARE(runs, 3);
    }

    // A replica's step may be a graph only alone in its run, without a
    // straggler or dropout, its batch gathered on the device; each refusal
    // says why. The key carries the by-value arguments, the float bits
    // exactly, and dropout's step only where a layer reads it.
    void replicaStepsBecomeGraphsOnlyWhenNothingOnTheHostTakesPart() {
        int buffer = 0;
        const dp::ReplicaStep step{.batch_on_device = true,
                                   .rows = 96,
                                   .global_batch = 96,
                                   .micro_batches = 2,
                                   .lr = 0.1f,
                                   .weight_decay = 5e-4f,
                                   .step = 41,
                                   .buffers = {&buffer}};
        QVERIFY(dp::step_graph_refusal(step) == nullptr);
        const dp::StepGraphRequest request = dp::step_graph_request(step);
        QVERIFY(request.capturable);
        QCOMPARE(request.key.rows, 96);
        QCOMPARE(request.key.global_batch, 96);
        QCOMPARE(request.key.micro_batches, 2);
        QCOMPARE(request.key.lr_bits, std::uint32_t(0x3dcccccd));
        QCOMPARE(request.key.weight_decay_bits, dp::float_bits(5e-4f));
        QCOMPARE(request.key.dropout_step, std::uint64_t(0));  // no layer reads it
        QVERIFY(request.key.buffers[0] == &buffer && request.key.buffers[1] == nullptr);
        dp::ReplicaStep nudged = step;
        nudged.lr = std::nextafter(0.1f, 1.f);  // one ulp: another graph
        QVERIFY(!(dp::step_graph_request(nudged).key == request.key));

        const auto refused = [&](dp::ReplicaStep changed, const char* why) {
            const char* refusal = dp::step_graph_refusal(changed);
            QVERIFY2(refusal && std::string(refusal).find(why) != std::string::npos,
                     refusal ? refusal : "(none)");
            QVERIFY(!dp::step_graph_request(changed).capturable);
        };
        dp::ReplicaStep changed = step;
        changed.world = 2;
        refused(changed, "more than one replica");
        changed = step;
        changed.straggler = true;
        refused(changed, "straggler");
        changed = step;
        changed.batch_on_device = false;
        refused(changed, "gathered on the host");
        changed = step;
        changed.draws_per_step = true;
        refused(changed, "dropout");
        QCOMPARE(dp::step_graph_request(changed).key.dropout_step, std::uint64_t(41));
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
