// Convolution: conv2d on every padding, stride and kernel shape the models use.
// Data-driven checks (a) to (c) of op_test_support.h on every op case below,
// then hand-computed values, which run on both backends.

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "op_family_test.h"

#include "backend/kernel_choices.h"
#include "backend/reference/nhwc.h"
#include "models/model_registry.h"

namespace {

using namespace dp::op_test;

struct Conv2dOp {
    // A fast backend sums the C*k*k (forward), O*k*k (backward data) or
    // N*OH*OW (backward weights) products of each output in its own blocked
    // order: float rounding of up to a few hundred terms (oneDNN: <= 4e-6).
    static constexpr double tolerance_vs_reference = 1e-4;
    Conv2dShape shape;

    std::string label() const {
        return "conv2d x " + dims({shape.batch, shape.in_channels, shape.in_h, shape.in_w}) +
               " w " + dims({shape.out_channels, shape.in_channels, shape.kernel, shape.kernel}) +
               " stride " + std::to_string(shape.stride) + " pad " + std::to_string(shape.pad);
    }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(shape.input_size(), -1, 1, rng)},
                {"w", uniform<T>(shape.weight_size(), -1, 1, rng)},
                {"b", uniform<T>(shape.out_channels, -1, 1, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.conv2d_forward(shape, in.at("x"), in.at("w"), in.at("b"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        auto [dw, db] = ops.conv2d_backward_weights(shape, in.at("x"), dy);
        return {{"x", ops.conv2d_backward_data(shape, dy, in.at("w"))},
                {"w", std::move(dw)},
                {"b", std::move(db)}};
    }
};

using OpCase = std::variant<Conv2dOp>;

const std::vector<OpCase>& op_cases() {
    static const std::vector<OpCase> cases{
        Conv2dOp{{.batch = 2, .in_channels = 3, .in_h = 7, .in_w = 7, .out_channels = 4,
                  .kernel = 3}},
        // Stride 2 with padding 1, even input.
        Conv2dOp{{.batch = 2, .in_channels = 2, .in_h = 8, .in_w = 8, .out_channels = 3,
                  .kernel = 3, .stride = 2, .pad = 1}},
        // Odd, non-square input.
        Conv2dOp{{.batch = 1, .in_channels = 3, .in_h = 9, .in_w = 7, .out_channels = 2,
                  .kernel = 3, .stride = 2, .pad = 1}},
        // Stride 2 that leaves the last input row and column in no window.
        Conv2dOp{{.batch = 2, .in_channels = 2, .in_h = 6, .in_w = 6, .out_channels = 3,
                  .kernel = 3, .stride = 2}},
        // 1x1 kernels, with stride 1 and 2.
        Conv2dOp{{.batch = 3, .in_channels = 4, .in_h = 5, .in_w = 5, .out_channels = 6,
                  .kernel = 1}},
        Conv2dOp{{.batch = 2, .in_channels = 4, .in_h = 7, .in_w = 7, .out_channels = 3,
                  .kernel = 1, .stride = 2}},
        // LeNet-like 5x5 kernels: "same" padding on one channel, then 6 -> 16.
        Conv2dOp{{.batch = 2, .in_channels = 1, .in_h = 12, .in_w = 12, .out_channels = 6,
                  .kernel = 5, .pad = 2}},
        Conv2dOp{{.batch = 2, .in_channels = 6, .in_h = 12, .in_w = 12, .out_channels = 16,
                  .kernel = 5}},
    };
    return cases;
}

}  // namespace

class TestConvolutionOps : public OpFamilyTest {
    Q_OBJECT

    void add_rows() override { add_op_case_rows(op_cases()); }
    void run(OpCheck check) override { run_op_check(op_cases(), check, reference_, onednn_); }

private slots:
    void conv2d_known_values() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};  // 1x1x3x3

            // One 2x2 filter [1 2; 3 4] plus bias 1: each output is its
            // window dotted with the filter, plus 1.
            const Conv2dShape s{.batch = 1, .in_channels = 1, .in_h = 3, .in_w = 3,
                                .out_channels = 1, .kernel = 2};
            const std::vector<float> w{1, 2, 3, 4};
            check_values(failures, on + "2x2 filter y", ops->conv2d_forward(s, x, w, {1}),
                         {38, 48, 68, 78});
            // With dy = 1: dx[i] sums the filter taps that touch x[i], dw sums
            // the input windows, db counts the outputs.
            const std::vector<float> ones(4, 1);
            check_values(failures, on + "2x2 filter dx", ops->conv2d_backward_data(s, ones, w),
                         {1, 3, 2, 4, 10, 6, 3, 7, 4});
            const auto [dw, db] = ops->conv2d_backward_weights(s, x, ones);
            check_values(failures, on + "2x2 filter dw", dw, {12, 16, 24, 28});
            check_values(failures, on + "2x2 filter db", db, {4});

            // A 3x3 box filter with padding 1 sums each in-bounds neighbourhood.
            const Conv2dShape padded{.batch = 1, .in_channels = 1, .in_h = 3, .in_w = 3,
                                     .out_channels = 1, .kernel = 3, .pad = 1};
            check_values(failures, on + "3x3 box pad 1 y",
                         ops->conv2d_forward(padded, x, std::vector<float>(9, 1), {0}),
                         {12, 21, 16, 27, 45, 33, 24, 39, 28});

            // A 1x1 filter of 2 with stride 2 doubles the corners.
            const Conv2dShape strided{.batch = 1, .in_channels = 1, .in_h = 3, .in_w = 3,
                                      .out_channels = 1, .kernel = 1, .stride = 2};
            check_values(failures, on + "1x1 stride 2 y",
                         ops->conv2d_forward(strided, x, {2}, {0}), {2, 6, 14, 18});
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // NHWC: the index maps are each other's inverse and agree with the
    // per-coordinate ones, and the NHWC convolution (weights OHWI) computes
    // the NCHW one's y bit for bit, on LeNet's first layer, a
    // ResNet 3x3 stride 2 with padding and its 1x1 stride-2 shortcut.
    void conv2d_nhwc_matches_nchw() {
        const Conv2dShape shapes[] = {
            {.batch = 2, .in_channels = 1, .in_h = 28, .in_w = 28, .out_channels = 6, .kernel = 3},
            {.batch = 2, .in_channels = 5, .in_h = 9, .in_w = 7, .out_channels = 4, .kernel = 3,
             .stride = 2, .pad = 1},
            {.batch = 3, .in_channels = 6, .in_h = 8, .in_w = 8, .out_channels = 5, .kernel = 1,
             .stride = 2}};
        std::mt19937 rng(kSeed);
        for (const Conv2dShape& s : shapes) {
            const dp::NchwShape xs = ref::conv2d_input_nchw(s);
            for (int n = 0; n < xs.batch; ++n)
                for (int c = 0; c < xs.channels; ++c)
                    for (int h = 0; h < xs.h; ++h)
                        for (int w = 0; w < xs.w; ++w) {
                            const std::size_t i = ref::nchw_index(xs, n, c, h, w);
                            QCOMPARE(ref::nhwc_index_of_nchw(xs, i), ref::nhwc_index(xs, n, c, h, w));
                            QCOMPARE(ref::nchw_index_of_nhwc(xs, ref::nhwc_index_of_nchw(xs, i)), i);
                        }
            const auto x = uniform<float>(s.input_size(), -1, 1, rng);
            const auto w = uniform<float>(s.weight_size(), -1, 1, rng);
            const auto b = uniform<float>(std::size_t(s.out_channels), -1, 1, rng);
            std::vector<float> y(s.output_size()), y_nhwc(s.output_size());
            ref::conv2d_forward(s, x.data(), w.data(), b.data(), y.data());
            ref::conv2d_forward_nhwc(s, ref::to_nhwc(xs, x).data(),
                                     ref::to_nhwc(ref::conv2d_weights_nchw(s), w).data(), b.data(),
                                     y_nhwc.data());
            const std::string at = nchw_label("conv2d nhwc", xs) + " k" + std::to_string(s.kernel);
            QVERIFY2(ref::to_nchw(ref::conv2d_output_nchw(s), y_nhwc) == y, at.c_str());
        }
    }

    // Every kernel a kernel cache can name computes what the reference loops
    // do, within the tolerance of the data-driven checks: the file pins each
    // shape's three passes to one kernel number (0 NCHW, 1 blocked, 2 NHWC,
    // 3 Winograd; 9 is no kernel, and 3 on a shape Winograd cannot run is
    // none either: both fall back to the fixed rule). Winograd rounds
    // differently from direct summation, so where it ran its bits differ
    // from the blocked kernel's, which shows the pin took effect.
    void every_cached_kernel_matches_the_reference() {
        const std::vector<Conv2dShape> shapes{
            // Winograd-shaped (3x3, stride 1, channels a multiple of 16), as ResNet-18's.
            {.batch = 2, .in_channels = 16, .in_h = 8, .in_w = 8, .out_channels = 32,
             .kernel = 3, .pad = 1},
            {.batch = 3, .in_channels = 3, .in_h = 7, .in_w = 7, .out_channels = 4, .kernel = 3},
            {.batch = 2, .in_channels = 4, .in_h = 7, .in_w = 7, .out_channels = 3, .kernel = 1,
             .stride = 2},
        };
        QTemporaryDir dir;
        const std::filesystem::path file =
            std::filesystem::path(dir.path().toStdString()) / "kernel-choices.tsv";
        dp::KernelChoices& choices = dp::kernel_choices();
        const struct RestoreFixedTuning {
            ~RestoreFixedTuning() { dp::kernel_choices().configure({}, dp::KernelTuning::fixed); }
        } restore;

        struct Outputs {
            std::vector<float> y, dx, dw, db;
        };
        const auto run_all = [&](BackendOps& ops, const Conv2dShape& s, std::mt19937& rng) {
            const auto x = uniform<float>(s.input_size(), -1, 1, rng);
            const auto w = uniform<float>(s.weight_size(), -1, 1, rng);
            const auto b = uniform<float>(s.out_channels, -1, 1, rng);
            const auto dy = uniform<float>(s.output_size(), -1, 1, rng);
            auto [dw, db] = ops.conv2d_backward_weights(s, x, dy);
            return Outputs{ops.conv2d_forward(s, x, w, b), ops.conv2d_backward_data(s, dy, w),
                           std::move(dw), std::move(db)};
        };
        const auto outputs_with = [&](int kernel, Failures& failures) -> std::vector<Outputs> {
            // Measure once to write every key, then pin them all to `kernel`.
            choices.configure(file, dp::KernelTuning::retune);
            {
                dp::OneDnnBackend measuring;
                BackendOps ops(measuring);
                std::mt19937 rng(1);
                for (const Conv2dShape& s : shapes) run_all(ops, s, rng);
            }
            const std::string saved = choices.save();
            failures.check(saved.empty(), "saving the measured choices: " + saved);
            std::ifstream in(file);
            std::string line, pinned;
            while (std::getline(in, line))
                // Key, choice and a measured error (0): an entry without
                // one would be measured again, as a v1 file's are.
                pinned += line.starts_with("#") ? line + "\n"
                                                 : line.substr(0, line.find('\t') + 1) +
                                                       std::to_string(kernel) + "\t0\n";
            in.close();
            std::ofstream(file) << pinned;
            choices.configure(file, dp::KernelTuning::cached);
            const int measured_before = choices.measured();
            dp::OneDnnBackend pinned_backend;
            BackendOps ops(pinned_backend);
            std::vector<Outputs> outputs;
            std::mt19937 rng(2);
            for (const Conv2dShape& s : shapes) outputs.push_back(run_all(ops, s, rng));
            // Kernels 0-2 run every shape: each pass ran the pinned one, none
            // was measured again, except NHWC (2) on the 4-channel 1x1
            // stride-2 backward weights, whose oneDNN kernel writes past its
            // workspace (onednn_convolution.cpp): that pin is refused,
            // measured again and rewritten. A pin no shape can run (9) is
            // measured again and its entry rewritten (Winograd's 3 is, where
            // a shape has no Winograd kernel).
            if (kernel <= 2)
                failures.check(choices.measured() == measured_before + (kernel == 2 ? 1 : 0),
                               "a pinned choice was measured, or the NHWC pin on a 1x1 "
                               "stride-2 weight gradient with 4 channels was run");
            if (kernel == 9)
                failures.check(choices.measured() > measured_before,
                               "an impossible pinned choice was not measured again");
            return outputs;
        };

        std::vector<Outputs> expected;
        std::mt19937 rng(2);
        for (const Conv2dShape& s : shapes) expected.push_back(run_all(reference_, s, rng));

        Failures failures;
        std::vector<Outputs> blocked;
        for (const int kernel : {0, 1, 2, 3, 9}) {
            const std::vector<Outputs> actual = outputs_with(kernel, failures);
            if (kernel == 1) blocked = actual;
            for (std::size_t i = 0; i < shapes.size(); ++i) {
                const std::string what = "kernel " + std::to_string(kernel) + " shape " +
                                         std::to_string(i) + " ";
                const double tolerance = Conv2dOp::tolerance_vs_reference;
                failures.check(dp::test::compare_elementwise(actual[i].y, expected[i].y, 1.0), tolerance, what + "y");
                failures.check(dp::test::compare_elementwise(actual[i].dx, expected[i].dx, 1.0), tolerance, what + "dx");
                failures.check(dp::test::compare_elementwise(actual[i].dw, expected[i].dw, 1.0), tolerance, what + "dw");
                failures.check(dp::test::compare_elementwise(actual[i].db, expected[i].db, 1.0), tolerance, what + "db");
            }
            if (kernel == 3 && dp::OneDnnBackend::has_winograd())
                failures.check(actual[0].y != blocked[0].y && actual[0].dx != blocked[0].dx,
                               "Winograd pinned on a Winograd shape, yet its bits equal the "
                               "blocked kernel's");
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // Issue 43: ResNet-18/8 on 48x48 images and larger corrupted the heap
    // while its kernels were measured (a oneDNN kernel writing past its
    // workspace), and aborted in malloc or free. A training step of each
    // model measures every candidate of every convolution it has, on
    // 1-channel images of each size, in each precision this CPU computes
    // (full-width ResNet-18 in fp32 only, at batch 1, to stay quick; the
    // overflow needs no larger batch); scripts/asan runs it under
    // AddressSanitizer.
    void every_models_kernel_candidates_run_at_every_image_size_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("size");
        for (const dp::ModelInfo& info : dp::model_registry())
            for (const int size : {28, 48, 64, 96})
                QTest::addRow("%s %dx%d", info.name.c_str(), size, size)
                    << QString::fromStdString(info.name) << size;
    }
    void every_models_kernel_candidates_run_at_every_image_size() {
        QFETCH(QString, model);
        QFETCH(int, size);
        const bool full_resnet = model == "resnet18";
        QTemporaryDir dir;
        dp::KernelChoices& choices = dp::kernel_choices();
        const struct RestoreFixedTuning {
            ~RestoreFixedTuning() { dp::kernel_choices().configure({}, dp::KernelTuning::fixed); }
        } restore;
        choices.configure(std::filesystem::path(dir.path().toStdString()) / "kernel-choices.tsv",
                          dp::KernelTuning::retune);
        std::vector<dp::Precision> precisions{dp::Precision::fp32};
        if (dp::OneDnnBackend::computes_bf16() && !full_resnet)
            precisions.push_back(dp::Precision::bf16);
        Failures failures;
        for (const dp::Precision precision : precisions) {
            const std::string in = std::string(dp::precision_name(precision)) + ": ";
            const int measured_before = choices.measured();
            const std::vector<float> gradients =
                one_step_gradients(model.toStdString(), size, full_resnet ? 1 : 2, precision);
            failures.check(std::ranges::all_of(gradients, [](float g) { return std::isfinite(g); }),
                           in + "a gradient is not finite");
            failures.check(model == "linear" || choices.measured() > measured_before,
                           in + "no convolution was measured");
        }
        QVERIFY2(failures.empty(), failures.text());
    }

private:
    // The parameter gradients of one training step of `model` on random
    // images of size x size, on a fresh OneDnnBackend.
    static std::vector<float> one_step_gradients(const std::string& model, int size, int batch,
                                                 dp::Precision precision) {
        dp::OneDnnBackend backend(precision);
        const auto net = dp::build_model(model, {1, size, size}, 10);
        net->build(backend, batch, 1);
        std::mt19937 rng(3);
        const auto images = uniform<float>(std::size_t(batch) * size * size, 0, 1, rng);
        const auto dlogits = uniform<float>(std::size_t(batch) * 10, -0.1, 0.1, rng);
        const dp::DeviceBuffer x = backend.allocate(images.size());
        const dp::DeviceBuffer dy = backend.allocate(dlogits.size());
        backend.upload(images.data(), x.get(), images.size());
        backend.upload(dlogits.data(), dy.get(), dlogits.size());
        const dp::Pass pass{.batch = batch, .training = true, .global_batch = batch};
        net->forward(pass, x.get());
        net->backward(pass, x.get(), dy.get());
        std::vector<float> gradients(net->parameters().total_size());
        backend.download(net->parameters().gradients(), gradients.data(), gradients.size());
        return gradients;
    }
};

QTEST_APPLESS_MAIN(TestConvolutionOps)
#include "test_ops_convolution.moc"
