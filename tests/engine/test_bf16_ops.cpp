// OneDnnBackend in bf16 precision (backend/precision.h): convolutions and
// linear layers round their float inputs to bfloat16 and accumulate and
// write in float32, as PyTorch's autocast does on the CPU.
//
// Two checks per pass, each on every case below:
//  - exactness: the bf16 pass equals the fp32 pass run on inputs already
//    rounded to bfloat16 (round to nearest even, as oneDNN's reorders and
//    PyTorch's casts round) up to float32 summation order; this pins down
//    both where the rounding happens and that the outputs stay float32;
//  - the bound from bf16's 8-bit mantissa: rounding to bfloat16 moves a
//    value by at most u = 2^-8 of itself (unit roundoff, 8 significant bits),
//    so a product of two rounded factors by at most (2u + u^2) of |a b|,
//    and every output element of a sum of products by at most
//    (2u + u^2) * sum |a_i b_i| from the fp32 result: computed here by the
//    fp32 pass on the inputs' absolute values. The bf16 pass must also differ
//    from fp32 somewhere, or bf16 never ran.
// Skipped on CPUs without AVX512_BF16 or AMX (oneDNN would refuse bf16).
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backend/onednn/onednn_backend.h"
#include "backend/reference/bf16.h"
#include "core/error.h"

namespace {

using Floats = std::vector<float>;

Floats rounded(const Floats& values) {
    Floats out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = dp::reference::bf16_rounded(values[i]);
    return out;
}

// float32 bits and the bf16 bits PyTorch 1.13 gives them on this project's
// machines (torch.tensor([x]).to(torch.bfloat16), AMD EPYC Zen 4): ties to
// even (1 + 2^-8 down to 1, 1 + 3 * 2^-8 up to 1 + 2^-6), above a tie up,
// float's largest up to infinity, subnormals rounded as any other value,
// zeros and infinities with their signs.
struct Bf16Case {
    std::uint32_t float_bits;
    std::uint16_t bf16;
};
constexpr Bf16Case kPyTorchBf16[] = {
    {0x3f800000u, 0x3f80}, {0x3f808000u, 0x3f80}, {0x3f818000u, 0x3f82}, {0x3f808001u, 0x3f81},
    {0x3f80ffffu, 0x3f81}, {0xbf808000u, 0xbf80}, {0x7f7fffffu, 0x7f80}, {0x7f7f8000u, 0x7f80},
    {0x7f7f7fffu, 0x7f7f}, {0x7f800000u, 0x7f80}, {0xff800000u, 0xff80}, {0x00000001u, 0x0000},
    {0x00008000u, 0x0000}, {0x00018000u, 0x0002}, {0x00008001u, 0x0001}, {0x007fffffu, 0x0080},
    {0x80008000u, 0x8000}, {0x00000000u, 0x0000}, {0x80000000u, 0x8000}, {0x3dcccccdu, 0x3dcd},
    {0x40490fdbu, 0x4049},
};
// NaNs PyTorch kept NaN (as 0xffff: its payload is its own).
constexpr std::uint32_t kNaNs[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7fffffffu};

Floats absolute(const Floats& values) {
    Floats out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = std::abs(values[i]);
    return out;
}

Floats uniform(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> distribution(-1.f, 1.f);
    Floats values(n);
    for (float& value : values) value = distribution(rng);
    return values;
}

constexpr double kUnitRoundoff = 1.0 / 256;  // 2^-8: bfloat16 keeps 8 significant bits
constexpr double kProductBound = 2 * kUnitRoundoff + kUnitRoundoff * kUnitRoundoff;
// float32 sums of up to a few thousand products in two orders (the bf16 and
// the fp32 kernels'): relative to the sum of the magnitudes.
constexpr double kSummationOrder = 1e-5;

// One pass of an op: its output from two inputs (a, b), on a backend.
using Pass = std::function<Floats(dp::Backend&, const Floats& a, const Floats& b)>;

// The two checks of the file comment on one pass; returns failures, one a line.
QString check_pass(const QString& what, const Pass& pass, const Floats& a, const Floats& b) {
    dp::OneDnnBackend fp32, bf16(dp::Precision::bf16);
    const Floats ours = pass(bf16, a, b);
    const Floats exact_of_rounded = pass(fp32, rounded(a), rounded(b));
    const Floats exact = pass(fp32, a, b);
    const Floats magnitudes = pass(fp32, absolute(a), absolute(b));
    QString failures;
    double worst_vs_rounded = 0, worst_vs_bound = 0, differs = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) {
        const double scale = std::max(double(magnitudes[i]), 1e-30);
        worst_vs_rounded =
            std::max(worst_vs_rounded, std::abs(ours[i] - exact_of_rounded[i]) / scale);
        worst_vs_bound = std::max(worst_vs_bound, std::abs(ours[i] - exact[i]) / scale);
        differs = std::max(differs, double(std::abs(ours[i] - exact[i])));
    }
    if (!(worst_vs_rounded <= kSummationOrder))
        failures += QString("%1: %2 of sum |a b| from fp32 on bf16-rounded inputs\n")
                        .arg(what).arg(worst_vs_rounded);
    if (!(worst_vs_bound <= kProductBound + kSummationOrder))
        failures += QString("%1: %2 of sum |a b| from fp32, over bf16's bound %3\n")
                        .arg(what).arg(worst_vs_bound).arg(kProductBound);
    if (differs == 0) failures += what + ": identical to fp32: bf16 did not run\n";
    return failures;
}

// The element counts of an op's x, w and y, and its three passes through
// the Backend: a convolution's or a linear layer's.
struct Sizes {
    std::size_t x, w, y, channels;
};
Sizes sizes_of(const dp::Conv2dShape& s) {
    return {s.input_size(), s.weight_size(), s.output_size(), std::size_t(s.out_channels)};
}
Sizes sizes_of(const dp::LinearShape& s) {
    return {s.input_size(), s.weight_size(), s.output_size(), std::size_t(s.out_features)};
}
void forward(dp::Backend& on, const dp::Conv2dShape& s, const float* x, const float* w,
             const float* b, float* y) {
    on.conv2d_forward(s, x, w, b, y);
}
void forward(dp::Backend& on, const dp::LinearShape& s, const float* x, const float* w,
             const float* b, float* y) {
    on.linear_forward(s, x, w, b, y);
}
void backward_data(dp::Backend& on, const dp::Conv2dShape& s, const float* dy, const float* w,
                   float* dx) {
    on.conv2d_backward_data(s, dy, w, dx);
}
void backward_data(dp::Backend& on, const dp::LinearShape& s, const float* dy, const float* w,
                   float* dx) {
    on.linear_backward_data(s, dy, w, dx);
}
void backward_weights(dp::Backend& on, const dp::Conv2dShape& s, const float* x, const float* dy,
                      float* dw, float* db) {
    on.conv2d_backward_weights(s, x, dy, dw, db);
}
void backward_weights(dp::Backend& on, const dp::LinearShape& s, const float* x, const float* dy,
                      float* dw, float* db) {
    on.linear_backward_weights(s, x, dy, dw, db);
}

// check_pass on the forward, backward data and backward weights of shape
// `s`, on inputs uniform in [-1, 1] drawn from `seed`.
template <typename Shape>
QString check_passes(const Shape& s, unsigned seed) {
    const Sizes n = sizes_of(s);
    std::mt19937 rng(seed);
    const Floats x = uniform(n.x, rng), w = uniform(n.w, rng), dy = uniform(n.y, rng);
    const Floats zero_bias(n.channels, 0.f);
    QString failures;
    failures += check_pass("forward", [&](dp::Backend& on, const Floats& a, const Floats& b) {
        Floats y(n.y);
        forward(on, s, a.data(), b.data(), zero_bias.data(), y.data());
        return y;
    }, x, w);
    failures += check_pass("backward data", [&](dp::Backend& on, const Floats& a, const Floats& b) {
        Floats dx(n.x);
        backward_data(on, s, a.data(), b.data(), dx.data());
        return dx;
    }, dy, w);
    failures += check_pass("backward weights", [&](dp::Backend& on, const Floats& a, const Floats& b) {
        Floats dw(n.w), db(n.channels);
        backward_weights(on, s, a.data(), b.data(), dw.data(), db.data());
        return dw;
    }, x, dy);
    return failures;
}

}  // namespace

Q_DECLARE_METATYPE(dp::Conv2dShape)
Q_DECLARE_METATYPE(dp::LinearShape)

class TestBf16Ops : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (QTest::currentTestFunction() != QLatin1String("tf32IsRefusedOnTheCpu") &&
            QTest::currentTestFunction() != QLatin1String("hostRoundingMatchesPyTorch") &&
            !dp::OneDnnBackend::computes_bf16())
            QSKIP("this CPU lacks AVX512_BF16 and AMX: oneDNN has no bf16 kernels here");
    }

    // The host's float -> bf16 (reference/bf16.h), which this file's exactness
    // check rounds inputs with, gives PyTorch's bits; widening is exact.
    void hostRoundingMatchesPyTorch() {
        for (const Bf16Case& c : kPyTorchBf16) {
            const float value = std::bit_cast<float>(c.float_bits);
            QCOMPARE(QString::number(dp::reference::round_to_bf16(value), 16),
                     QString::number(c.bf16, 16));
            QCOMPARE(std::bit_cast<std::uint32_t>(dp::reference::widen_bf16(c.bf16)),
                     std::uint32_t(c.bf16) << 16);
        }
        for (std::uint32_t bits : kNaNs) {
            const std::uint16_t word = dp::reference::round_to_bf16(std::bit_cast<float>(bits));
            QVERIFY2(std::isnan(dp::reference::widen_bf16(word)), qPrintable(QString::number(bits, 16)));
            QCOMPARE(word >> 15, int(bits >> 31));  // the sign kept
        }
        // Every bf16 value is its own rounding.
        for (std::uint32_t word = 0; word < 0x10000u; ++word) {
            const float value = dp::reference::widen_bf16(std::uint16_t(word));
            if (!std::isnan(value)) QCOMPARE(int(dp::reference::round_to_bf16(value)), int(word));
        }
    }

    void convolution_data() {
        QTest::addColumn<dp::Conv2dShape>("shape");
        // LeNet's first layer (one input channel), a ResNet 3x3 and its 1x1
        // stride-2 shortcut, a 5x5 without padding.
        const auto conv = [](int batch, int in_channels, int size, int out_channels, int kernel,
                             int stride, int pad) {
            return dp::Conv2dShape{.batch = batch, .in_channels = in_channels, .in_h = size,
                                   .in_w = size, .out_channels = out_channels, .kernel = kernel,
                                   .stride = stride, .pad = pad};
        };
        QTest::newRow("1->20 k3") << conv(4, 1, 12, 20, 3, 1, 0);
        QTest::newRow("32->32 k3 p1") << conv(2, 32, 8, 32, 3, 1, 1);
        QTest::newRow("16->32 k1 s2") << conv(3, 16, 8, 32, 1, 2, 0);
        QTest::newRow("20->50 k5") << conv(2, 20, 9, 50, 5, 1, 0);
    }
    void convolution() {
        QFETCH(dp::Conv2dShape, shape);
        const QString failures = check_passes(shape, 17);
        QVERIFY2(failures.isEmpty(), qPrintable(failures));
    }

    // The bias and its gradient never pass through bf16: the bias gradient
    // of a bf16 backend equals the fp32 one bit for bit.
    void biasGradientStaysFloat32() {
        const dp::Conv2dShape s{.batch = 2, .in_channels = 8, .in_h = 6, .in_w = 6,
                                .out_channels = 16, .kernel = 3, .stride = 1, .pad = 1};
        std::mt19937 rng(5);
        const Floats x = uniform(2 * 8 * 36, rng), dy = uniform(2 * 16 * 36, rng);
        Floats dw(16 * 8 * 9), db_fp32(16), db_bf16(16);
        dp::OneDnnBackend fp32, bf16(dp::Precision::bf16);
        fp32.conv2d_backward_weights(s, x.data(), dy.data(), dw.data(), db_fp32.data());
        bf16.conv2d_backward_weights(s, x.data(), dy.data(), dw.data(), db_bf16.data());
        QCOMPARE(db_bf16, db_fp32);
    }

    void linear_data() {
        QTest::addColumn<dp::LinearShape>("shape");
        QTest::newRow("LeNet fc1") << dp::LinearShape{.batch = 16, .in_features = 800, .out_features = 128};
        QTest::newRow("ResNet fc") << dp::LinearShape{.batch = 8, .in_features = 512, .out_features = 10};
        QTest::newRow("odd sizes") << dp::LinearShape{.batch = 3, .in_features = 7, .out_features = 5};
    }
    void linear() {
        QFETCH(dp::LinearShape, shape);
        const QString failures = check_passes(shape, 29);
        QVERIFY2(failures.isEmpty(), qPrintable(failures));
    }

    // Same inputs, same bits: a second bf16 backend repeats the first.
    void repeatsBitForBit() {
        const dp::Conv2dShape s{.batch = 2, .in_channels = 16, .in_h = 8, .in_w = 8,
                                .out_channels = 16, .kernel = 3, .stride = 1, .pad = 1};
        std::mt19937 rng(3);
        const Floats x = uniform(2 * 16 * 64, rng), w = uniform(16 * 16 * 9, rng);
        const Floats bias(16, 0.25f);
        Floats first(2 * 16 * 64), second(first.size());
        dp::OneDnnBackend a(dp::Precision::bf16), b(dp::Precision::bf16);
        a.conv2d_forward(s, x.data(), w.data(), bias.data(), first.data());
        b.conv2d_forward(s, x.data(), w.data(), bias.data(), second.data());
        QCOMPARE(second, first);
    }

    void tf32IsRefusedOnTheCpu() {
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::OneDnnBackend(dp::Precision::tf32));
    }
};

QTEST_APPLESS_MAIN(TestBf16Ops)
#include "test_bf16_ops.moc"
