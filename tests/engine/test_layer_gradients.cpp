// Finite-difference gradient checks through whole layers, beside the
// op-level checks of test_ops_<family>: as Caffe's GradientChecker checks
// layers and nets as well as ops, since a layer can wire correct ops wrongly
// (a wrong saved activation, a missed accumulation of the shortcut's
// gradient, statistics not synchronized where they should be).
//
// A layer on R replicas (R = 1, or 2 with BatchNorm synchronized over a
// thread communicator, as train/replica_group.cpp runs them), each holding
// a shard of the batch, its own backend and its own parameter store with the
// same values, is reduced to the scalar L = sum over replicas of sum(y_r * r_r)
// for fixed random r. Its backward with dy_r = r_r gives dL/dx (the shards'
// dx) and dL/dθ for every parameter θ (summed over the replicas, whose
// stores each hold their shard's share); each checked element must match the
// central difference of L, the forward run again with the element (of x, or
// of θ on every replica) moved by -step and +step. Both CPU backends, in float.

#include "gradient_check.h"

#include "backend/onednn/onednn_backend.h"
#include "backend/reference/reference_backend.h"
#include "devices/device_thread.h"
#include "nn/batch_norm2d.h"
#include "nn/batch_norm2d_relu.h"
#include "nn/conv2d.h"
#include "nn/layer.h"
#include "nn/parameter_store.h"
#include "nn/residual_block.h"
#include "parallel/communicator_factory.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::uint32_t kSeed = 20240608;

std::vector<float> uniform(std::size_t n, float low, float high, std::mt19937& rng) {
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(n);
    for (float& value : values) value = distribution(rng);
    return values;
}

// What a case builds on each replica, and how it sets the parameters and
// the input (the same values on every replica; x is the whole batch).
struct LayerCase {
    std::string label;
    std::function<std::unique_ptr<dp::Layer>()> make_layer;
    dp::SampleShape input;
    int batch = 2;     // per replica
    int replicas = 1;  // > 1: BatchNorm synchronized over them
    // The values of parameter `name` (of `size` elements).
    std::function<std::vector<float>(const std::string& name, std::size_t size, std::mt19937&)>
        parameter;
    std::function<std::vector<float>(std::size_t size, std::mt19937&)> input_values;
};

// A layer on `replicas` replicas, run as train/replica_group.cpp runs them.
class ReplicatedLayer {
public:
    ReplicatedLayer(const LayerCase& layer_case, const std::string& backend)
        : case_(layer_case),
          shard_input_size_(case_.input.size() * case_.batch),
          shard_output_size_(case_.make_layer()->output_shape(case_.input).size() * case_.batch) {
        if (case_.replicas > 1) {
            communicator_ = dp::make_thread_communicator(dp::AllReduceStrategy::naive, case_.replicas);
            // One thread per replica for the whole run, as ReplicaGroup's
            // devices have (oneDNN is not run on short-lived threads).
            const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
            for (int r = 0; r < case_.replicas; ++r)
                threads_.push_back(std::make_unique<dp::DeviceThread>(dp::DeviceInfo{
                    .id = "cpu:" + std::to_string(r),
                    .description = "replica " + std::to_string(r),
                    .cores = {int(unsigned(r) % cores)}}));
        }
        for (int r = 0; r < case_.replicas; ++r) {
            auto replica = std::make_unique<Replica>();
            replica->backend = backend == "onednn"
                                   ? std::unique_ptr<dp::Backend>(new dp::OneDnnBackend)
                                   : std::unique_ptr<dp::Backend>(new dp::ReferenceBackend);
            replica->layer = case_.make_layer();
            replica->layer->build(replica->store, case_.input);
            replica->store.allocate(*replica->backend, kSeed);
            replica->layer->allocate(*replica->backend, case_.batch);
            dp::Backend& b = *replica->backend;
            replica->x = b.allocate(shard_input_size());
            replica->y = b.allocate(shard_output_size());
            replica->dy = b.allocate(shard_output_size());
            replica->dx = b.allocate(shard_input_size());
            replicas_.push_back(std::move(replica));
        }
    }

    // A replica that ran on a device thread is freed there, as ReplicaGroup
    // frees its replicas: oneDNN keeps a primitive's scratchpad with the
    // thread that created it, and frees it only on that thread (freed from
    // another, it stays allocated for good: scripts/asan's leak report).
    ~ReplicatedLayer() {
        for (std::size_t r = 0; r < threads_.size(); ++r)
            threads_[r]->start([this, r] { replicas_[r].reset(); });
        for (auto& thread : threads_) thread->wait();
    }
    ReplicatedLayer(const ReplicatedLayer&) = delete;
    ReplicatedLayer& operator=(const ReplicatedLayer&) = delete;

    const std::vector<dp::ParameterInfo>& parameters() const {
        return replicas_.front()->store.infos();
    }
    std::size_t input_size() const { return shard_input_size() * replicas_.size(); }
    std::size_t output_size() const { return shard_output_size() * replicas_.size(); }

    // Sets parameter `info` to `values` on every replica.
    void set_parameter(const dp::ParameterInfo& info, const std::vector<float>& values) {
        for (auto& replica : replicas_)
            replica->backend->upload(values.data(), replica->store.values() + info.offset,
                                     info.size);
    }

    // L = sum(y * r) for the whole batch x.
    double loss(const std::vector<float>& x, const std::vector<float>& r) {
        std::vector<float> y(output_size());
        on_every_replica([&](Replica& replica, int rank) {
            forward(replica, rank, x);
            replica.backend->synchronize();
            replica.backend->download(replica.y.get(), y.data() + rank * shard_output_size(),
                                      shard_output_size());
        });
        return dp::test::weighted_sum(y, r);
    }

    // dL/dx ("x") and dL/dθ (by parameter name) for dy = r.
    std::map<std::string, std::vector<float>> gradients(const std::vector<float>& x,
                                                        const std::vector<float>& r) {
        std::map<std::string, std::vector<float>> result;
        std::vector<float>& dx = result["x"];
        dx.resize(input_size());
        std::vector<std::vector<float>> shard_gradients(replicas_.size());
        on_every_replica([&](Replica& replica, int rank) {
            forward(replica, rank, x);
            dp::Backend& b = *replica.backend;
            b.upload(r.data() + rank * shard_output_size(), replica.dy.get(), shard_output_size());
            replica.layer->backward(b, pass(rank), replica.x.get(), replica.y.get(),
                                    replica.dy.get(), replica.dx.get());
            b.synchronize();
            b.download(replica.dx.get(), dx.data() + rank * shard_input_size(),
                       shard_input_size());
            shard_gradients[rank].resize(replica.store.total_size());
            b.download(replica.store.gradients(), shard_gradients[rank].data(),
                       replica.store.total_size());
        });
        for (const dp::ParameterInfo& info : parameters()) {
            std::vector<float>& sum = result[info.name];
            sum.assign(info.size, 0.0f);
            for (const auto& shard : shard_gradients)
                for (std::size_t i = 0; i < info.size; ++i) sum[i] += shard[info.offset + i];
        }
        return result;
    }

private:
    struct Replica {
        std::unique_ptr<dp::Backend> backend;
        dp::ParameterStore store;
        std::unique_ptr<dp::Layer> layer;
        dp::DeviceBuffer x{nullptr, nullptr}, y{nullptr, nullptr}, dy{nullptr, nullptr},
            dx{nullptr, nullptr};
    };

    std::size_t shard_input_size() const { return shard_input_size_; }
    std::size_t shard_output_size() const { return shard_output_size_; }

    dp::Pass pass(int rank) const {
        return {.batch = case_.batch,
                .training = true,
                .seed = kSeed,
                .step = 0,
                .first_sample = std::uint64_t(rank) * case_.batch,
                .sync_batch_norm = communicator_.get(),
                .rank = rank,
                .global_batch = case_.batch * case_.replicas};
    }

    void forward(Replica& replica, int rank, const std::vector<float>& x) {
        replica.backend->upload(x.data() + rank * shard_input_size(), replica.x.get(),
                                shard_input_size());
        replica.layer->forward(*replica.backend, pass(rank), replica.x.get(), replica.y.get());
    }

    // Runs work(replica, rank) for every replica, each on its device thread
    // when there are several (their collectives wait for one another).
    void on_every_replica(const std::function<void(Replica&, int)>& work) {
        if (replicas_.size() == 1) return work(*replicas_.front(), 0);
        for (std::size_t r = 0; r < replicas_.size(); ++r)
            threads_[r]->start([&, r] {
                try {
                    work(*replicas_[r], int(r));
                } catch (...) {
                    communicator_->abort();
                    throw;
                }
            });
        std::exception_ptr first_error;
        for (auto& thread : threads_) {
            try {
                thread->wait();
            } catch (...) {
                if (!first_error) first_error = std::current_exception();
            }
        }
        if (first_error) std::rethrow_exception(first_error);
    }

    const LayerCase& case_;
    const std::size_t shard_input_size_, shard_output_size_;
    std::unique_ptr<dp::Communicator> communicator_;
    std::vector<std::unique_ptr<dp::DeviceThread>> threads_;
    std::vector<std::unique_ptr<Replica>> replicas_;
};

// ---------------------------------------------------------------- the cases

// BatchNorm2d alone: smooth in x, gamma and beta. x has an offset per
// channel, for the mean to remove.
std::vector<float> batch_norm_input(int channels, int area, std::size_t size, std::mt19937& rng) {
    std::vector<float> x = uniform(size, -1, 1, rng);
    const std::vector<float> offsets = uniform(std::size_t(channels), -2, 2, rng);
    for (std::size_t i = 0; i < size; ++i) x[i] += offsets[i / std::size_t(area) % channels];
    return x;
}

std::vector<float> batch_norm_parameter(const std::string& name, std::size_t size,
                                        std::mt19937& rng) {
    return name.ends_with(".weight") ? uniform(size, 0.5f, 1.5f, rng) : uniform(size, -1, 1, rng);
}

LayerCase batch_norm_case(int replicas) {
    const dp::SampleShape input{.channels = 3, .height = 5, .width = 5};
    return {.label = "BatchNorm2d 3 channels, x " + std::to_string(replicas) + " x 2x3x5x5" +
                     (replicas > 1 ? ", synchronized" : ""),
            .make_layer = [] { return std::make_unique<dp::BatchNorm2d>("bn", 3); },
            .input = input,
            .batch = 2,
            .replicas = replicas,
            .parameter = batch_norm_parameter,
            .input_values = [input](std::size_t size, std::mt19937& rng) {
                return batch_norm_input(input.channels, input.height * input.width, size, rng);
            }};
}

// ResidualBlock: relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut). Its two
// relus have kinks, which a finite difference must not straddle; they are
// kept out of reach by construction, whatever the step moves. In training,
// a BatchNorm's normalized values of a channel of `count` elements are
// bounded, |xhat| <= sqrt(count - 1), whatever its input, so with gamma <=
// 0.25, count <= 145 and beta = +-4 each channel's bn output stays in
// [1, 7] ("on": relu passes all of it) or [-7, -1] ("off": relu passes none).
// bn1's and bn2's channels are on but for one each, so that relu's masking
// is checked too. The shortcut adds at most 0.51 to bn2's output: x within
// +-0.5, or a projection with weights and bias within +-0.1 over 3 channels
// of x (and a step of 0.01 on any of them).
constexpr float kBlockBeta = 4.0f;

std::vector<float> block_parameter(const std::string& name, std::size_t size, std::mt19937& rng) {
    const bool projection = name.find(".conv3.") != std::string::npos;
    if (name.find(".conv") != std::string::npos)
        return projection ? uniform(size, -0.1f, 0.1f, rng) : uniform(size, -0.5f, 0.5f, rng);
    if (name.ends_with(".weight")) return uniform(size, 0.2f, 0.25f, rng);  // bn gamma
    // bn beta: on, on, off, on for bn1; on, off, on, on for bn2.
    std::vector<float> beta(size, kBlockBeta);
    beta.at(name.find(".bn1.") != std::string::npos ? 2 : 1) = -kBlockBeta;
    return beta;
}

LayerCase block_case(int in_channels, int stride, int replicas) {
    const bool projection = in_channels != 4 || stride != 1;
    const dp::SampleShape input{.channels = in_channels, .height = 6, .width = 6};
    return {.label = std::string("ResidualBlock ") + std::to_string(in_channels) + " -> 4" +
                     (projection ? ", 1x1 projection" : ", identity shortcut") + ", stride " +
                     std::to_string(stride) + ", x " + std::to_string(replicas) + " x 2x" +
                     std::to_string(in_channels) + "x6x6" +
                     (replicas > 1 ? ", BatchNorm synchronized" : ""),
            .make_layer = [=] {
                return std::make_unique<dp::ResidualBlock>("block", in_channels, 4, projection,
                                                           stride);
            },
            .input = input,
            .batch = 2,
            .replicas = replicas,
            .parameter = block_parameter,
            .input_values = [](std::size_t size,
                               std::mt19937& rng) { return uniform(size, -0.5f, 0.5f, rng); }};
}

// BatchNorm2dRelu: its relu's kink kept out of reach as in block_case
// (channel 1 off, the others on; 2 x 5 x 5 = 50 per channel per replica).
LayerCase batch_norm_relu_case(int replicas, bool fused) {
    LayerCase c = batch_norm_case(replicas);
    c.label = std::string("BatchNorm2dRelu ") + (fused ? "fused" : "unfused") + ", 3 channels, x " +
              std::to_string(replicas) + " x 2x3x5x5" + (replicas > 1 ? ", synchronized" : "");
    c.make_layer = [fused] { return std::make_unique<dp::BatchNorm2dRelu>("bn", 3, fused); };
    c.parameter = block_parameter;
    return c;
}

const std::vector<LayerCase>& layer_cases() {
    static const std::vector<LayerCase> cases{
        batch_norm_case(1),
        batch_norm_case(2),
        batch_norm_relu_case(1, true),
        batch_norm_relu_case(2, true),
        batch_norm_relu_case(1, false),
        block_case(4, 1, 1),  // BatchNorm counts 2 x 6 x 6 = 72
        block_case(3, 2, 1),  // 2 x 3 x 3 = 18
        block_case(3, 2, 2),  // 4 x 3 x 3 = 36, synchronized
    };
    return cases;
}

// Errors relative, below magnitude 1 absolute, as the op-level float checks.
// The float rounding of L (~1e-7 x sqrt(outputs) x |y|) over 2 step, and the
// truncation error, ~step^2 x the third derivative, which only the
// BatchNorms have (relu is linear within the step, by construction, and so
// are the convolutions). Measured on every element of every tensor: worst
// 5e-4 at step 5e-3 (rounding: it halves as the step doubles), 3e-4 at
// 1e-2, and still 3e-4 at 2e-2, where truncation begins to show (conv2's
// weights, through bn2). So step 1e-2, and a tolerance of 5e-3, 17 times the
// worst error seen; the wiring errors it is there to catch (dx without the
// shortcut's gradient, synchronized BatchNorm's dx from local sums) give
// 0.1 to 1. Each tensor is sampled, at most 40 elements, to keep the
// runtime near a second.
dp::test::GradientCheckOptions<float> layer_check_options() {
    return {.step = 1e-2f, .tolerance = 5e-3, .floor = 1, .max_elements = 40, .seed = kSeed};
}

double max_abs(const std::vector<float>& values) {
    double largest = 0;
    for (const float value : values) largest = std::max(largest, double(std::abs(value)));
    return largest;
}

}  // namespace

class TestLayerGradients : public QObject {
    Q_OBJECT

private slots:
    void layer_gradients_match_finite_differences_data() {
        QTest::addColumn<int>("layer_case");
        QTest::addColumn<QString>("backend");
        for (std::size_t i = 0; i < layer_cases().size(); ++i)
            for (const char* backend : {"reference", "onednn"})
                QTest::addRow("%s on %s", layer_cases()[i].label.c_str(), backend)
                    << int(i) << QString(backend);
    }

    void layer_gradients_match_finite_differences() {
        QFETCH(int, layer_case);
        QFETCH(QString, backend);
        const LayerCase& c = layer_cases().at(layer_case);
        ReplicatedLayer layer(c, backend.toStdString());

        std::mt19937 rng(kSeed);
        std::map<std::string, std::vector<float>> parameters;
        for (const dp::ParameterInfo& info : layer.parameters()) {
            parameters[info.name] = c.parameter(info.name, info.size, rng);
            layer.set_parameter(info, parameters[info.name]);
        }
        std::vector<float> x = c.input_values(layer.input_size(), rng);
        const std::vector<float> r = uniform(layer.output_size(), -1, 1, rng);

        const auto analytic = layer.gradients(x, r);
        const auto options = layer_check_options();
        std::string failures;
        double worst = 0;
        std::string worst_name;
        const auto check = [&](const std::string& name, const dp::test::ErrorReport& report) {
            if (report.worst_error >= worst) {
                worst = report.worst_error;
                worst_name = name;
            }
            if (report.worst_error > options.tolerance)
                failures += "\n    d" + name + ": " + report.describe("analytic", "numeric") +
                            " > tolerance " + std::to_string(options.tolerance);
        };
        // The input: the whole batch, every replica's shard.
        check("x", dp::test::check_gradient(
                       x, analytic.at("x"), [&] { return layer.loss(x, r); }, options));
        // Each parameter, moved on every replica alike.
        for (const dp::ParameterInfo& info : layer.parameters()) {
            std::vector<float>& values = parameters.at(info.name);
            check(info.name, dp::test::check_gradient(
                                 values, analytic.at(info.name),
                                 [&] {
                                     layer.set_parameter(info, values);
                                     return layer.loss(x, r);
                                 },
                                 options));
            layer.set_parameter(info, values);
        }
        qInfo("worst relative error %.1e (d%s)", worst, worst_name.c_str());
        // Not vacuous: the gradient reaches the input.
        if (max_abs(analytic.at("x")) < 1e-2)
            failures += "\n    dx is " + std::to_string(max_abs(analytic.at("x"))) +
                        " at most: the check compares nothing";
        QVERIFY2(failures.empty(), failures.c_str());
    }

    // Issue 40 item 3: BatchNorm2dRelu through the backend's fused ops gives
    // the unfused pair's output and gradients bit for bit (the CPU backends'
    // fused ops are the pair's ops), with per-replica and synchronized
    // statistics, and masks: one channel's output is all zero.
    void fused_batch_norm_relu_matches_the_pair_data() {
        QTest::addColumn<int>("replicas");
        QTest::addColumn<QString>("backend");
        for (const int replicas : {1, 2})
            for (const char* backend : {"reference", "onednn"})
                QTest::addRow("x %d on %s", replicas, backend) << replicas << QString(backend);
    }

    void fused_batch_norm_relu_matches_the_pair() {
        QFETCH(int, replicas);
        QFETCH(QString, backend);
        std::vector<double> losses;
        std::vector<std::map<std::string, std::vector<float>>> gradients;
        for (const bool fused : {true, false}) {
            const LayerCase c = batch_norm_relu_case(replicas, fused);
            ReplicatedLayer layer(c, backend.toStdString());
            std::mt19937 rng(kSeed);
            for (const dp::ParameterInfo& info : layer.parameters())
                layer.set_parameter(info, c.parameter(info.name, info.size, rng));
            const std::vector<float> x = c.input_values(layer.input_size(), rng);
            const std::vector<float> r = uniform(layer.output_size(), -1, 1, rng);
            losses.push_back(layer.loss(x, r));
            gradients.push_back(layer.gradients(x, r));
        }
        QCOMPARE(losses[0], losses[1]);
        QCOMPARE(gradients[0].size(), std::size_t(3));  // x, bn.weight, bn.bias
        for (const auto& [name, fused] : gradients[0]) {
            const std::vector<float>& pair = gradients[1].at(name);
            QVERIFY2(fused == pair, name.c_str());
            QVERIFY2(max_abs(fused) > 0, name.c_str());
        }
        // The masked channel (1) passes no gradient to its gamma and beta.
        QCOMPARE(gradients[0].at("bn.bias")[1], 0.f);
        QVERIFY(gradients[0].at("bn.bias")[0] != 0.f);
    }

    // Issue 40 item 4: a convolution feeding a BatchNorm skips its bias in
    // training, which the BatchNorm cancels: the same output, dx, weight
    // gradient and running statistics as with the bias added (float
    // rounding apart), in evaluation too, and a bias gradient of exactly 0
    // (PyTorch's is rounding noise), whatever the buffer held before.
    void a_bias_before_batch_norm_is_skipped_exactly_data() {
        QTest::addColumn<QString>("backend");
        for (const char* backend : {"reference", "onednn"}) QTest::addRow("%s", backend) << QString(backend);
    }

    void a_bias_before_batch_norm_is_skipped_exactly() {
        const dp::SampleShape input{3, 6, 5};
        constexpr int batch = 4;
        struct ConvThenNorm {
            dp::ParameterStore store;
            dp::Conv2d conv{"conv", 3, 4, 3, 1, 1};
            dp::BatchNorm2d norm{"norm", 4};
            dp::DeviceBuffer mid{nullptr, nullptr}, y{nullptr, nullptr}, dmid{nullptr, nullptr},
                dx{nullptr, nullptr};
        };
        std::unique_ptr<dp::Backend> backend;
        if (QTest::currentDataTag() == QString("onednn"))
            backend = std::make_unique<dp::OneDnnBackend>();
        else
            backend = std::make_unique<dp::ReferenceBackend>();
        dp::Backend& b = *backend;  // host memory: its pointers are read directly
        std::mt19937 rng(kSeed);
        const std::vector<float> x = uniform(input.size() * batch, -1, 1, rng);
        std::vector<float> values, buffers;
        const auto dy = uniform(std::size_t(4) * 6 * 5 * batch, -1, 1, rng);
        ConvThenNorm skipping, adding;
        skipping.norm.follow(skipping.conv);
        for (ConvThenNorm* net : {&skipping, &adding}) {
            net->conv.build(net->store, input);
            net->norm.build(net->store, net->conv.output_shape(input));
            net->store.allocate(b, kSeed);
            net->norm.allocate(b, batch);
            const std::size_t activations = net->conv.output_shape(input).size() * batch;
            net->mid = b.allocate(activations), net->y = b.allocate(activations);
            net->dmid = b.allocate(activations), net->dx = b.allocate(x.size());
            // Every parameter and running statistic away from 0, the bias included.
            if (values.empty()) {
                values = uniform(net->store.total_size(), -0.5f, 0.5f, rng);
                buffers = uniform(net->store.buffers_size(), 0.5f, 1.5f, rng);
            }
            std::copy(values.begin(), values.end(), net->store.values());
            std::copy(buffers.begin(), buffers.end(), net->store.buffers());
            b.fill(net->store.gradients(), net->store.total_size(), 7.f);  // stale gradients
            const dp::Pass training{.batch = batch, .training = true};
            net->conv.forward(b, training, x.data(), net->mid.get());
            net->norm.forward(b, training, net->mid.get(), net->y.get());
            net->norm.backward(b, training, net->mid.get(), net->y.get(), dy.data(), net->dmid.get());
            net->conv.backward(b, training, x.data(), net->mid.get(), net->dmid.get(), net->dx.get());
            b.synchronize();
        }
        const auto close = [](const float* ours, const float* theirs, std::size_t n) {
            double worst = 0, scale = 0;
            for (std::size_t i = 0; i < n; ++i) {
                worst = std::max(worst, double(std::abs(ours[i] - theirs[i])));
                scale = std::max(scale, double(std::abs(theirs[i])));
            }
            return worst <= 2e-5 * scale;
        };
        const std::size_t outputs = skipping.conv.output_shape(input).size() * batch;
        QVERIFY(close(skipping.y.get(), adding.y.get(), outputs));
        QVERIFY(close(skipping.dx.get(), adding.dx.get(), x.size()));
        QVERIFY(close(skipping.store.buffers(), adding.store.buffers(), buffers.size()));
        for (const dp::ParameterInfo& info : skipping.store.infos()) {
            const float* ours = skipping.store.gradients() + info.offset;
            if (info.name == "conv.bias") {
                for (std::size_t i = 0; i < info.size; ++i) QCOMPARE(ours[i], 0.f);
                // Adding the bias, its gradient is the noise of a sum that cancels.
                const float* theirs = adding.store.gradients() + info.offset;
                QVERIFY(max_abs(std::vector<float>(theirs, theirs + info.size)) < 1e-4);
            } else {
                QVERIFY2(close(ours, adding.store.gradients() + info.offset, info.size), info.name.c_str());
            }
        }
        // Evaluation adds the bias, against running statistics that hold it.
        const dp::Pass evaluation{.batch = batch, .training = false};
        for (ConvThenNorm* net : {&skipping, &adding}) {
            net->conv.forward(b, evaluation, x.data(), net->mid.get());
            net->norm.forward(b, evaluation, net->mid.get(), net->y.get());
        }
        b.synchronize();
        QVERIFY(close(skipping.y.get(), adding.y.get(), outputs));
    }
};

QTEST_APPLESS_MAIN(TestLayerGradients)
#include "test_layer_gradients.moc"
