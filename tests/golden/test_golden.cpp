// The engine against PyTorch 1.13 (llm.c's way): the same weights and batch
// of real Fashion-MNIST images give the same outputs, loss and every
// gradient, and ten SGD steps give the same losses. The files come from
// make_golden.py beside this test; see README.md there.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "backend/onednn/onednn_backend.h"
#include "backend/reference/reference_backend.h"
#include "golden_tensors.h"
#include "io/safetensors.h"
#include "models/lenet.h"
#include "models/mnistnet.h"
#include "models/resnet18.h"

namespace {

constexpr int batch = 16;
constexpr float lr = 0.1f;

using dp::golden::floats_of;

// PyTorch's golden run and ours, side by side.
class GoldenRun {
public:
    GoldenRun(const std::string& model, std::unique_ptr<dp::Sequential> replica,
              std::unique_ptr<dp::Backend> backend)
        : owned_backend_(std::move(backend)),
          backend_(*owned_backend_),
          golden_(dp::read_safetensors(std::string(DP_GOLDEN_DIR) + "/" + model + ".safetensors")),
          model_(std::move(replica)) {
        model_->build(backend_, batch, 0);
        input_ = backend_.allocate(batch * model_->input_shape().size());
        labels_ = backend_.allocate(batch);
        doutputs_ = backend_.allocate(batch * model_->classes());
        backend_.upload(tensor("input").data(), input_.get(), batch * model_->input_shape().size());
        backend_.upload(tensor("labels").data(), labels_.get(), batch);
        auto& store = model_->parameters();
        upload_state("init.", store.infos(), store.values());
        upload_state("init.", store.buffer_infos(), store.buffers());
        std::istringstream zero_grad(golden_.metadata["zero_grad_params"]);
        for (std::string name; std::getline(zero_grad, name, ',');) zero_grad_.insert(name);
    }

    std::vector<float> tensor(const std::string& name) const {
        const auto* entry = golden_.find(name);
        if (!entry) throw std::runtime_error("golden file lacks " + name);
        return floats_of(*entry);
    }
    int reliable_steps() const { return std::stoi(golden_.metadata.at("trajectory_reliable_steps")); }
    bool is_zero_grad(const std::string& name) const { return zero_grad_.count(name) > 0; }

    // Forward and backward on the golden batch; returns the mean loss.
    double forward_backward() {
        const dp::Pass pass{.batch = batch, .training = true};
        const float* outputs = model_->forward(pass, input_.get());
        outputs_.resize(batch * model_->classes());
        backend_.download(outputs, outputs_.data(), outputs_.size());
        const auto loss_op = model_->loss() == dp::Sequential::Loss::nll
                                 ? &dp::Backend::nll_loss
                                 : &dp::Backend::softmax_cross_entropy;
        const auto loss = (backend_.*loss_op)(batch, model_->classes(), outputs, labels_.get(),
                                              doutputs_.get(), 1.f / batch);
        model_->backward(pass, input_.get(), doutputs_.get());
        return loss.loss_sum / batch;
    }

    void sgd_step() {
        auto& store = model_->parameters();
        backend_.sgd_update(store.total_size(), lr, store.values(), store.gradients());
    }

    const std::vector<float>& outputs() const { return outputs_; }

    // Every parameter (and buffer) of ours next to the golden tensor prefix+name.
    template <typename Check>
    void for_each_state(bool include_buffers, Check&& check) {
        auto& store = model_->parameters();
        visit(store.infos(), store.values(), check);
        if (include_buffers) visit(store.buffer_infos(), store.buffers(), check);
    }
    template <typename Check>
    void for_each_gradient(Check&& check) {
        auto& store = model_->parameters();
        visit(store.infos(), store.gradients(), check);
    }

private:
    template <typename Check>
    void visit(const std::vector<dp::ParameterInfo>& infos, const float* device, Check& check) {
        for (const auto& info : infos) {
            std::vector<float> ours(info.size);
            backend_.download(device + info.offset, ours.data(), info.size);
            check(info.name, ours);
        }
    }

    void upload_state(const std::string& prefix, const std::vector<dp::ParameterInfo>& infos,
                      float* device) {
        for (const auto& info : infos) {
            const auto values = tensor(prefix + info.name);
            QCOMPARE(values.size(), info.size);
            backend_.upload(values.data(), device + info.offset, info.size);
        }
    }

    std::unique_ptr<dp::Backend> owned_backend_;
    dp::Backend& backend_;
    dp::SafetensorsFile golden_;
    std::unique_ptr<dp::Sequential> model_;
    dp::DeviceBuffer input_{nullptr, nullptr}, labels_{nullptr, nullptr}, doutputs_{nullptr, nullptr};
    std::vector<float> outputs_;
    std::set<std::string> zero_grad_;
};

// max |ours - golden| relative to max |golden|: the README's measure, since
// many elements of a gradient are near zero.
double tensor_error(const std::vector<float>& ours, const std::vector<float>& golden) {
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < golden.size(); ++i) {
        worst = std::max(worst, std::abs(double(ours[i]) - golden[i]));
        scale = std::max(scale, std::abs(double(golden[i])));
    }
    return worst / std::max(scale, 1e-30);
}

double max_abs(const std::vector<float>& values) {
    double worst = 0;
    for (float v : values) worst = std::max(worst, std::abs(double(v)));
    return worst;
}

std::unique_ptr<dp::Sequential> golden_model(const QString& name) {
    const dp::SampleShape input{1, 28, 28};
    if (name == "lenet") return dp::make_lenet(input, 10);
    if (name == "mnistnet") return dp::make_mnistnet(input, 10, 0.f);  // golden run: no dropout
    return dp::make_resnet18(input, 10, 8);
}

}  // namespace

class TestGolden : public QObject {
    Q_OBJECT

private slots:
    // Each model on oneDNN (the fast path) and on the reference loops.
    void matchesPyTorch_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("reference");
        for (const char* model : {"lenet", "mnistnet", "resnet18-narrow"}) {
            QTest::addRow("%s onednn", model) << model << false;
            QTest::addRow("%s reference", model) << model << true;
        }
    }

    void matchesPyTorch() {
        QFETCH(QString, model);
        QFETCH(bool, reference);
        std::unique_ptr<dp::Backend> backend;
        if (reference)
            backend = std::make_unique<dp::ReferenceBackend>();
        else
            backend = std::make_unique<dp::OneDnnBackend>();
        GoldenRun run(model.toStdString(), golden_model(model), std::move(backend));

        const double loss = run.forward_backward();
        QVERIFY(tensor_error(run.outputs(), run.tensor("logits")) <= 1e-5);
        QVERIFY2(std::abs(loss - run.tensor("loss")[0]) <= 1e-5 * std::abs(loss),
                 qPrintable(QString("loss %1 vs %2").arg(loss).arg(run.tensor("loss")[0])));

        double worst_gradient = 0;
        int gradients = 0;
        run.for_each_gradient([&](const std::string& name, const std::vector<float>& ours) {
            const auto golden = run.tensor("grad." + name);
            ++gradients;
            if (run.is_zero_grad(name)) {
                // Exactly 0 in exact arithmetic (a bias before BatchNorm): both sides are noise.
                QVERIFY2(max_abs(ours) <= 5e-4, name.c_str());
                return;
            }
            const double error = tensor_error(ours, golden);
            worst_gradient = std::max(worst_gradient, error);
            QVERIFY2(error <= 1e-4, qPrintable(QString("grad.%1: %2").arg(name.c_str()).arg(error)));
        });
        QVERIFY(gradients > 0);
        qInfo("%s: worst gradient error %.2e", qPrintable(model), worst_gradient);

        // Ten SGD steps; a chaotic model's file says how many losses are reproducible.
        const auto trajectory = run.tensor("trajectory");
        const int reliable = run.reliable_steps();
        std::vector<double> ours{loss};
        run.sgd_step();
        if (reliable < int(trajectory.size())) {
            // The state after one step pins the update and the running statistics.
            run.for_each_state(true, [&](const std::string& name, const std::vector<float>& values) {
                const auto golden = run.tensor("step1." + name);
                if (run.is_zero_grad(name)) {
                    // One step of lr times the gradients' noise (above) from the same start.
                    const auto start = run.tensor("init." + name);
                    for (std::size_t i = 0; i < values.size(); ++i)
                        QVERIFY(std::abs(values[i] - start[i]) <= lr * 5e-4);
                    return;
                }
                const double error = tensor_error(values, golden);
                QVERIFY2(error <= 1e-4, qPrintable(QString("step1.%1: %2").arg(name.c_str()).arg(error)));
            });
        }
        for (int step = 1; step < reliable; ++step) {
            ours.push_back(run.forward_backward());
            run.sgd_step();
        }
        for (int step = 0; step < reliable; ++step)
            QVERIFY2(std::abs(ours[step] - trajectory[step]) <= 1e-4 * trajectory[step],
                     qPrintable(QString("step %1: %2 vs %3").arg(step).arg(ours[step]).arg(trajectory[step])));
        if (reliable == int(trajectory.size())) {
            run.for_each_state(true, [&](const std::string& name, const std::vector<float>& values) {
                const double error = tensor_error(values, run.tensor("final." + name));
                QVERIFY2(error <= 1e-4, qPrintable(QString("final.%1: %2").arg(name.c_str()).arg(error)));
            });
        }
    }

    // bf16 against PyTorch's CPU autocast in bf16 (<model>-bf16.safetensors):
    // the same init, batch and ten SGD steps as <model>.safetensors.
    //
    // Tolerances. Rounding to bfloat16 (8 significant bits) moves a value by
    // at most u = 2^-8 of itself. PyTorch's autocast and this engine round at
    // different places: both round the inputs and weights of convolutions
    // and linear layers, but autocast also rounds every activation and
    // activation gradient between them (conv, pooling and log_softmax
    // outputs, the backward's gradients, the conv biases), which this engine
    // keeps in float32. So neither is a rounding of the other: each is a
    // bf16 perturbation of the same float32 computation. How far bf16 moves
    // a quantity is d, the distance of PyTorch's autocast run from its
    // float32 run (the two golden files), or u where that is smaller: a
    // single rounding's worth, for what bf16 barely moves (a loss near
    // ln 10, a bias gradient summed in float32). With both runs that close
    // to float32, the triangle inequality bounds their distance:
    //   |ours - autocast| <= |ours - fp32| + |fp32 - autocast| <= 2 max(u, d).
    // d is measured per tensor: bf16 moves a sum with cancellation (a conv
    // weight gradient, 7% for MnistNet's first layer) much more than u, and
    // a ReLU input within bf16 rounding of zero goes either way in each run.
    // Every error is max |a - b| / max |b| per tensor, as in matchesPyTorch.
    void matchesPyTorchAutocastBf16_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("lenet") << "lenet";
        QTest::newRow("mnistnet") << "mnistnet";
    }
    void matchesPyTorchAutocastBf16() {
        QFETCH(QString, model);
        if (!dp::OneDnnBackend::computes_bf16())
            QSKIP("this CPU lacks AVX512_BF16 and AMX: oneDNN has no bf16 kernels here");
        constexpr double u = 1.0 / 256;
        const auto tolerance = [&](double d) { return 2 * std::max(u, d); };
        GoldenRun run(model.toStdString() + "-bf16", golden_model(model),
                      std::make_unique<dp::OneDnnBackend>(dp::Precision::bf16));
        const dp::SafetensorsFile fp32 = dp::read_safetensors(
            std::string(DP_GOLDEN_DIR) + "/" + model.toStdString() + ".safetensors");
        const auto fp32_tensor = [&](const std::string& name) { return floats_of(*fp32.find(name)); };
        QString failures;
        double worst_share = 0;  // of its tolerance, the worst error's
        const auto check = [&](const QString& what, double error, double d) {
            worst_share = std::max(worst_share, error / tolerance(d));
            if (!(error <= tolerance(d)))
                failures += QString("%1: %2 from autocast, over 2 max(u, %3)\n").arg(what).arg(error).arg(d);
        };

        const double loss = run.forward_backward();
        check("logits", tensor_error(run.outputs(), run.tensor("logits")),
              tensor_error(run.tensor("logits"), fp32_tensor("logits")));
        const double golden_loss = run.tensor("loss")[0], fp32_loss = fp32_tensor("loss")[0];
        check("loss", std::abs(loss - golden_loss) / golden_loss,
              std::abs(golden_loss - fp32_loss) / fp32_loss);
        // bf16 must have run: float32 would match the fp32 file to its 1e-4.
        double worst_from_fp32 = 0;
        run.for_each_gradient([&](const std::string& name, const std::vector<float>& ours) {
            const auto golden = run.tensor("grad." + name), golden_fp32 = fp32_tensor("grad." + name);
            check(QString::fromStdString("grad." + name), tensor_error(ours, golden),
                  tensor_error(golden, golden_fp32));
            worst_from_fp32 = std::max(worst_from_fp32, tensor_error(ours, golden_fp32));
        });
        if (!(worst_from_fp32 > 1e-4))
            failures += QString("gradients within %1 of fp32's: bf16 did not run\n").arg(worst_from_fp32);
        qInfo("%s: worst error %.0f%% of its tolerance after the first step", qPrintable(model),
              100 * worst_share);

        // Ten SGD steps: the loss before each, and the state after the last.
        const auto trajectory = run.tensor("trajectory"), fp32_trajectory = fp32_tensor("trajectory");
        run.sgd_step();
        for (std::size_t step = 1; step < trajectory.size(); ++step) {
            const double ours = run.forward_backward();
            run.sgd_step();
            check(QString("loss before step %1").arg(step), std::abs(ours - trajectory[step]) / trajectory[step],
                  std::abs(trajectory[step] - fp32_trajectory[step]) / fp32_trajectory[step]);
        }
        run.for_each_state(true, [&](const std::string& name, const std::vector<float>& values) {
            const auto golden = run.tensor("final." + name);
            check(QString::fromStdString("final." + name), tensor_error(values, golden),
                  tensor_error(golden, fp32_tensor("final." + name)));
        });
        qInfo("%s: worst error %.0f%% of its tolerance after ten steps", qPrintable(model),
              100 * worst_share);
        QVERIFY2(failures.isEmpty(), qPrintable(failures));
    }
};

QTEST_APPLESS_MAIN(TestGolden)
#include "test_golden.moc"
