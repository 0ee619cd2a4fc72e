// Tests of engine/parallel: splitting a batch over replicas, the thread
// communicators (naive and ring: all-reduce against a sum in double, ranks
// bit-identical, repeatable bits, broadcast, back-to-back reuse, abort,
// timeouts naming the rank that never came, calls out of step), the
// communication threads that overlap them with backward (the same bits as
// the synchronous calls, started all-reduces that do not wait, abort and
// timeouts through them), DDP-style gradient buckets on LeNet's parameters
// and which launcher an MPI rank's environment names.
// Ranks are threads; QTest checks run on the main thread only, after the rank
// threads have joined (QTest's result logging is not thread-safe).

#include <QTest>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/error.h"
#include "nn/parameter_store.h"
#include "parallel/batch_split.h"
#include "parallel/bucket_plan.h"
#include "parallel/collective_schedule.h"
#include "parallel/collective_timeout.h"
#include "parallel/communicator_factory.h"
#include "parallel/gradient_reducer.h"
#include "parallel/mpi_launcher.h"
#include "parallel/overlapping_communicator.h"
#include "parallel/thread_rendezvous.h"

namespace {

using dp::GradientBucket;

// Records the all-reduces a reducer starts or runs at once, and how often it waits.
class RecordingCommunicator final : public dp::Communicator {
public:
    std::string name() const override { return "recording"; }
    int size() const override { return 2; }
    void all_reduce_sum(int, float* data, std::size_t count) override {
        started.emplace_back(data, count);
        ++synchronous;
    }
    void start_all_reduce_sum(int, float* data, std::size_t count) override {
        started.emplace_back(data, count);
    }
    void broadcast(int, float*, std::size_t, int) override {}
    void wait_all(int) override { ++waits; }
    void abort() override {}

    std::vector<std::pair<float*, std::size_t>> started;
    int synchronous = 0;  // of `started`, those run at once
    int waits = 0;
};
using dp::ParameterInfo;

constexpr std::uint32_t kSeed = 20240607;

std::unique_ptr<dp::Communicator> make_communicator(const QString& strategy, int ranks) {
    return dp::make_thread_communicator(dp::parse_all_reduce_strategy(strategy.toStdString()), ranks);
}

// The thread strategy, its started all-reduces run on a communication thread
// per rank when `overlapped` (as make_local_communicator gives CPU devices).
std::unique_ptr<dp::Communicator> make_communicator(const QString& strategy, int ranks,
                                                    dp::CollectiveTimeout timeout, bool overlapped) {
    auto synchronous = dp::make_thread_communicator(dp::parse_all_reduce_strategy(strategy.toStdString()), ranks,
                                                    std::move(timeout));
    if (!overlapped) return synchronous;
    return std::make_unique<dp::OverlappingCommunicator>(std::move(synchronous));
}

// One all-reduce as the test's communicator is used: on the calling thread,
// or started (on the rank's communication thread) and waited for.
void all_reduce(dp::Communicator& communicator, bool overlapped, int rank, float* data,
                std::size_t count) {
    if (!overlapped) return communicator.all_reduce_sum(rank, data, count);
    communicator.start_all_reduce_sum(rank, data, count);
    communicator.wait_all(rank);
}

// Runs body(rank) on one thread per rank and returns each rank's error
// message, empty where it succeeded. A failing rank aborts the communicator, as
// the trainer does, so the other ranks cannot hang.
std::vector<std::string> run_ranks(dp::Communicator& communicator,
                                   const std::function<void(int rank)>& body) {
    std::vector<std::string> errors(std::size_t(communicator.size()));
    std::vector<std::thread> threads;
    for (int rank = 0; rank < communicator.size(); ++rank) {
        threads.emplace_back([&, rank] {
            try {
                body(rank);
            } catch (const std::exception& error) {
                errors[std::size_t(rank)] = error.what();
                communicator.abort();
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    return errors;
}

QByteArray describe_errors(const std::vector<std::string>& errors) {
    QByteArray text;
    for (std::size_t rank = 0; rank < errors.size(); ++rank)
        if (!errors[rank].empty())
            text +=
                "rank " + QByteArray::number(qulonglong(rank)) + ": " + errors[rank].c_str() + "; ";
    return text;
}

std::vector<float> uniform_floats(std::size_t count, std::mt19937& rng) {
    std::uniform_real_distribution<float> distribution(-1.f, 1.f);
    std::vector<float> values(count);
    for (float& value : values) value = distribution(rng);
    return values;
}

// Bitwise equality: replicas must stay bit-identical, and -0.0 != 0.0 here.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](float x, float y) {
        return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
    });
}

// Every rank's copy of its input, all-reduced by `strategy` over one thread per rank.
std::vector<std::vector<float>> all_reduced(const QString& strategy,
                                            std::vector<std::vector<float>> buffers) {
    const auto communicator = make_communicator(strategy, int(buffers.size()));
    const auto errors = run_ranks(*communicator, [&](int rank) {
        auto& buffer = buffers[std::size_t(rank)];
        communicator->all_reduce_sum(rank, buffer.data(), buffer.size());
    });
    if (!describe_errors(errors).isEmpty())
        throw std::runtime_error(describe_errors(errors).toStdString());
    return buffers;
}

// The columns strategy and ranks, and a row for each strategy and rank count.
// Fails when, in `step` of `schedule`, a rank writes floats of its buffer
// that another rank reads, or reads floats another rank writes.
void check_step_is_race_free(const dp::CollectiveSchedule& schedule, int ranks, int step) {
    struct Access {
        int rank, buffer;
        std::size_t begin, end;
        bool write;
    };
    std::vector<Access> accesses;
    for (int rank = 0; rank < ranks; ++rank)
        for (int t = 0; t < schedule.transfers(rank, step); ++t) {
            const auto transfer = schedule.transfer(rank, step, t);
            if (transfer.begin == transfer.end) continue;
            QVERIFY(transfer.source != rank && transfer.source >= 0 && transfer.source < ranks);
            accesses.push_back({rank, rank, transfer.begin, transfer.end, true});
            accesses.push_back({rank, transfer.source, transfer.begin, transfer.end, false});
        }
    for (const Access& a : accesses)
        for (const Access& b : accesses)
            if (a.rank != b.rank && a.write && a.buffer == b.buffer && a.begin < b.end &&
                b.begin < a.end)
                QFAIL(qPrintable(QString("step %1: rank %2 writes floats [%3, %4) of its buffer "
                                         "while rank %5 uses them")
                                     .arg(step).arg(a.rank).arg(a.begin).arg(a.end).arg(b.rank)));
}

void add_strategy_rows(const std::vector<int>& rank_counts) {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("ranks");
    for (const dp::AllReduceStrategy run_strategy : dp::run_strategies())
        for (int ranks : rank_counts) {
            const char* strategy = dp::all_reduce_strategy_name(run_strategy);
            QTest::addRow("%s, %d ranks", strategy, ranks) << QString(strategy) << ranks;
        }
}

// Each strategy and rank count, called synchronously and overlapped.
void add_strategy_and_overlap_rows(const std::vector<int>& rank_counts) {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("ranks");
    QTest::addColumn<bool>("overlapped");
    for (const dp::AllReduceStrategy run_strategy : dp::run_strategies())
        for (int ranks : rank_counts)
            for (bool overlapped : {false, true}) {
                const char* strategy = dp::all_reduce_strategy_name(run_strategy);
                QTest::addRow("%s, %d ranks, %s", strategy, ranks,
                              overlapped ? "overlapped" : "synchronous")
                    << QString(strategy) << ranks << overlapped;
            }
}

// d2l's LeNet (12.5) with 3x3 first-layer kernels: offsets as the store lays them out.
std::vector<ParameterInfo> lenet_parameters() {
    dp::ParameterStore store;
    const auto weight = dp::ParameterInit::normal_0_01, bias = dp::ParameterInit::zeros;
    store.declare("conv1.weight", {20, 1, 3, 3}, weight);
    store.declare("conv1.bias", {20}, bias);
    store.declare("conv2.weight", {50, 20, 5, 5}, weight);
    store.declare("conv2.bias", {50}, bias);
    store.declare("fc1.weight", {128, 800}, weight);
    store.declare("fc1.bias", {128}, bias);
    store.declare("fc2.weight", {10, 128}, weight);
    store.declare("fc2.bias", {10}, bias);
    return store.infos();
}

QByteArray describe(const GradientBucket& bucket) {
    return QByteArray("{offset ") + QByteArray::number(qulonglong(bucket.offset)) + ", size " +
           QByteArray::number(qulonglong(bucket.size)) + ", params " +
           QByteArray::number(qulonglong(bucket.first_param)) + ".." +
           QByteArray::number(qulonglong(bucket.last_param)) + "}";
}

}  // namespace

class ParallelTest : public QObject {
    Q_OBJECT

private slots:
    void split_batch_matches_torch_chunk_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("parts");
        QTest::addColumn<std::vector<int>>("sizes");
        QTest::newRow("30 over 4") << 30 << 4 << std::vector<int>{8, 8, 8, 6};
        QTest::newRow("9 over 4") << 9 << 4 << std::vector<int>{3, 3, 3, 0};
        QTest::newRow("5 over 4") << 5 << 4 << std::vector<int>{2, 2, 1, 0};
        QTest::newRow("10 over 3") << 10 << 3 << std::vector<int>{4, 4, 2};
        QTest::newRow("256 over 2") << 256 << 2 << std::vector<int>{128, 128};
        QTest::newRow("3 over 5") << 3 << 5 << std::vector<int>{1, 1, 1, 0, 0};
        QTest::newRow("0 over 3") << 0 << 3 << std::vector<int>{0, 0, 0};
        QTest::newRow("7 over 1") << 7 << 1 << std::vector<int>{7};
    }
    void split_batch_matches_torch_chunk() {
        QFETCH(int, rows);
        QFETCH(int, parts);
        QFETCH(std::vector<int>, sizes);
        QCOMPARE(dp::split_batch(rows, parts), sizes);
    }

    // For every rows/parts combination up to 100 x 12 (parts > rows included):
    // shard i has clamp(rows - i*ceil(rows/parts), 0, ceil(rows/parts)) rows,
    // torch.chunk's sizes padded with empty shards, and the shards tile the batch.
    void split_batch_sizes_and_offsets_add_up() {
        for (int rows = 0; rows <= 100; ++rows) {
            for (int parts = 1; parts <= 12; ++parts) {
                const QByteArray where =
                    QByteArray::number(rows) + " rows over " + QByteArray::number(parts);
                const std::vector<int> sizes = dp::split_batch(rows, parts);
                const std::vector<dp::BatchShard> shards = dp::shard_batch(rows, parts);
                QVERIFY2(int(sizes.size()) == parts, where);
                QVERIFY2(int(shards.size()) == parts, where);
                const int chunk = (rows + parts - 1) / parts;
                int offset = 0;
                for (int i = 0; i < parts; ++i) {
                    const int expected = std::clamp(rows - i * chunk, 0, chunk);
                    QVERIFY2(sizes[std::size_t(i)] == expected,
                             where + ", shard " + QByteArray::number(i));
                    QVERIFY2((shards[std::size_t(i)] == dp::BatchShard{offset, expected}),
                             where + ", shard " + QByteArray::number(i));
                    offset += expected;
                }
                QVERIFY2(offset == rows, where);
            }
        }
    }

    void split_batch_rejects_bad_arguments() {
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::split_batch(10, 0));
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::split_batch(10, -2));
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::split_batch(-1, 2));
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::shard_batch(10, 0));
    }

    // Both strategies, 1 to 4 ranks, lengths 0, 1 (fewer floats than ranks), 7
    // (chunks of unequal length) and 1,000,003: the result is within float
    // rounding of the sum in double, identical on every rank, and identical
    // when the same inputs are reduced again.
    void all_reduce_sums_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("count");
        for (const dp::AllReduceStrategy run_strategy : dp::run_strategies())
            for (int ranks = 1; ranks <= 4; ++ranks)
                for (int count : {0, 1, 7, 1'000'003}) {
                    const char* strategy = dp::all_reduce_strategy_name(run_strategy);
                    QTest::addRow("%s, %d ranks, %d floats", strategy, ranks, count)
                        << QString(strategy) << ranks << count;
                }
    }
    void all_reduce_sums() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        QFETCH(int, count);
        std::mt19937 rng(kSeed + std::uint32_t(ranks * 31 + count));
        std::vector<std::vector<float>> inputs;
        for (int rank = 0; rank < ranks; ++rank)
            inputs.push_back(uniform_floats(std::size_t(count), rng));

        const auto reduced = all_reduced(strategy, inputs);

        // A float sum of n terms is off by about (n-1)·(eps/2)·Σ|x| at most.
        const double tolerance = double(ranks) * std::numeric_limits<float>::epsilon();
        int wrong = 0;
        for (std::size_t i = 0; i < std::size_t(count); ++i) {
            double sum = 0, magnitude = 0;
            for (const auto& input : inputs) {
                sum += input[i];
                magnitude += std::abs(input[i]);
            }
            if (std::abs(reduced[0][i] - sum) > tolerance * magnitude && wrong++ == 0)
                qWarning("element %zu: got %.9g, sum is %.9g", i, double(reduced[0][i]), sum);
        }
        QCOMPARE(wrong, 0);
        for (int rank = 1; rank < ranks; ++rank)
            QVERIFY2(same_bits(reduced[std::size_t(rank)], reduced[0]),
                     "rank " + QByteArray::number(rank));
        QVERIFY(same_bits(all_reduced(strategy, inputs)[0], reduced[0]));
    }

    void broadcast_copies_root_data() { add_strategy_rows({1, 2, 3, 4}); }
    void broadcast_copies_root() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        const auto communicator = make_communicator(strategy, ranks);
        std::mt19937 rng(kSeed);
        for (int root = 0; root < ranks; ++root) {
            std::vector<std::vector<float>> inputs;
            for (int rank = 0; rank < ranks; ++rank) inputs.push_back(uniform_floats(1001, rng));
            auto buffers = inputs;
            const auto errors = run_ranks(*communicator, [&](int rank) {
                communicator->broadcast(rank, buffers[std::size_t(rank)].data(), 1001, root);
            });
            QVERIFY2(describe_errors(errors).isEmpty(), describe_errors(errors));
            for (int rank = 0; rank < ranks; ++rank)
                QVERIFY2(same_bits(buffers[std::size_t(rank)], inputs[std::size_t(root)]),
                         "root " + QByteArray::number(root) + ", rank " + QByteArray::number(rank));
        }
    }

    // A reduce to root 0 leaves there naive's all-reduce bits (DataParallel's
    // gathers and gradient sum are the naive sum), the others' buffers as
    // they were on the thread strategies; to another root, the same sum.
    void reduce_sums_on_root_data() { add_strategy_rows({1, 2, 3, 4}); }
    void reduce_sums_on_root() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        const auto communicator = make_communicator(strategy, ranks);
        std::mt19937 rng(kSeed);
        std::vector<std::vector<float>> inputs;
        for (int rank = 0; rank < ranks; ++rank) inputs.push_back(uniform_floats(1001, rng));
        const std::vector<float> naive_sum = all_reduced("naive", inputs)[0];
        for (int root = 0; root < ranks; ++root) {
            auto buffers = inputs;
            const auto errors = run_ranks(*communicator, [&](int rank) {
                communicator->reduce_sum(rank, buffers[std::size_t(rank)].data(), 1001, root);
            });
            QVERIFY2(describe_errors(errors).isEmpty(), describe_errors(errors));
            for (int rank = 0; rank < ranks; ++rank) {
                if (rank != root) {
                    QVERIFY(same_bits(buffers[std::size_t(rank)], inputs[std::size_t(rank)]));
                    continue;
                }
                for (std::size_t i = 0; i < naive_sum.size(); ++i)
                    QVERIFY(std::abs(buffers[std::size_t(root)][i] - naive_sum[i]) <= 1e-5f);
                if (root == 0) QVERIFY(same_bits(buffers[0], naive_sum));
            }
        }
    }

    // 1000 collectives back to back on one communicator, every fourth a
    // broadcast, lengths 1 to 9: catches a barrier or buffer table reused
    // before every rank is done with it. Values are small integers, so every
    // sum is exact; each rank checks its own result after every call.
    void back_to_back_collectives_data() { add_strategy_rows({2, 3, 4}); }
    void back_to_back_collectives() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        const auto communicator = make_communicator(strategy, ranks);
        const auto value = [](int rank, int call, std::size_t i) {
            return float(rank + 1 + call % 7 + int(i));
        };
        const auto errors = run_ranks(*communicator, [&](int rank) {
            for (int call = 0; call < 1000; ++call) {
                std::vector<float> buffer(std::size_t(1 + call % 9));
                for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = value(rank, call, i);
                const bool is_broadcast = call % 4 == 3;
                const int root = call % ranks;
                if (is_broadcast)
                    communicator->broadcast(rank, buffer.data(), buffer.size(), root);
                else
                    communicator->all_reduce_sum(rank, buffer.data(), buffer.size());
                for (std::size_t i = 0; i < buffer.size(); ++i) {
                    float expected = 0;
                    for (int other = 0; other < ranks; ++other) expected += value(other, call, i);
                    if (is_broadcast) expected = value(root, call, i);
                    if (buffer[i] != expected)
                        throw std::runtime_error("call " + std::to_string(call) + ", element " +
                                                 std::to_string(i) + ": got " +
                                                 std::to_string(buffer[i]) + ", expected " +
                                                 std::to_string(expected));
                }
            }
        });
        QVERIFY2(describe_errors(errors).isEmpty(), describe_errors(errors));
    }

    // The last rank never arrives; once the others wait in the all-reduce
    // (overlapped: in wait_all, while their communication threads wait in
    // it), another thread aborts and they all throw dp::CollectiveAborted.
    // Later calls throw it at once.
    void abort_wakes_blocked_ranks_data() { add_strategy_and_overlap_rows({2, 3, 4}); }
    void abort_wakes_blocked_ranks() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        QFETCH(bool, overlapped);
        const auto communicator = make_communicator(strategy, ranks, {}, overlapped);
        const int absent = ranks - 1;
        std::vector<std::string> errors(static_cast<std::size_t>(absent));
        std::vector<std::thread> waiting;
        for (int rank = 0; rank < absent; ++rank) {
            waiting.emplace_back([&, rank] {
                std::vector<float> buffer(100, 1.f);
                try {
                    all_reduce(*communicator, overlapped, rank, buffer.data(), buffer.size());
                    errors[std::size_t(rank)] = "returned";
                } catch (const dp::CollectiveAborted& error) {
                    errors[std::size_t(rank)] = error.what();
                }
            });
        }
        // Enough for them to block; were they late, they would throw all the
        // same, since an abort is permanent.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::thread([&] { communicator->abort(); }).join();
        for (std::thread& thread : waiting) thread.join();
        for (const std::string& error : errors)
            QVERIFY2(error.starts_with("collective aborted: "), error.c_str());

        std::vector<float> buffer(4);
        QVERIFY_THROWS_EXCEPTION(dp::CollectiveAborted, communicator->all_reduce_sum(
                                                            absent, buffer.data(), buffer.size()));
        QVERIFY_THROWS_EXCEPTION(dp::CollectiveAborted,
                                 communicator->broadcast(0, buffer.data(), buffer.size(), 0));
    }

    // The last rank never arrives: within the (short) timeout the first rank
    // whose wait runs out throws dp::Error naming it by its device and the
    // phase, and the others are released with CollectiveAborted saying the
    // same. The communicator stays aborted, so the late rank cannot hang either.
    // Overlapped, the communication threads time out and wait_all throws.
    void timeout_names_the_rank_that_never_arrives_data() { add_strategy_and_overlap_rows({2, 3, 4}); }
    void timeout_names_the_rank_that_never_arrives() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        QFETCH(bool, overlapped);
        dp::CollectiveTimeout timeout{0.2, {}};
        for (int rank = 0; rank < ranks; ++rank)
            timeout.rank_names.push_back("cpu:" + std::to_string(rank));
        const auto communicator = make_communicator(strategy, ranks, timeout, overlapped);
        communicator->set_phase({"of step", 37});
        const int absent = ranks - 1;
        std::vector<std::string> timed_out(static_cast<std::size_t>(absent));
        std::vector<std::string> released(static_cast<std::size_t>(absent));
        std::vector<std::thread> waiting;
        const auto start = std::chrono::steady_clock::now();
        for (int rank = 0; rank < absent; ++rank) {
            waiting.emplace_back([&, rank] {
                std::vector<float> buffer(100, 1.f);
                try {
                    all_reduce(*communicator, overlapped, rank, buffer.data(), buffer.size());
                } catch (const dp::CollectiveAborted& error) {
                    released[std::size_t(rank)] = error.what();
                } catch (const dp::Error& error) {
                    timed_out[std::size_t(rank)] = error.what();
                }
            });
        }
        for (std::thread& thread : waiting) thread.join();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY2(seconds >= 0.2 && seconds < 5, QByteArray::number(seconds));

        const std::string expected =
            "cpu:" + std::to_string(absent) +
            " did not reach the all-reduce of step 37 within 0.2 s: it may be paused, swapping or "
            "stuck; raise {collective_timeout_s} if its steps are that slow";
        QCOMPARE(std::count_if(timed_out.begin(), timed_out.end(),
                               [&](const std::string& error) { return error == expected; }),
                 1);
        for (int rank = 0; rank < absent; ++rank)
            if (timed_out[std::size_t(rank)].empty())
                QCOMPARE(released[std::size_t(rank)], "collective aborted: " + expected);
        std::vector<float> buffer(100, 1.f);
        QVERIFY_THROWS_EXCEPTION(dp::CollectiveAborted, communicator->all_reduce_sum(
                                                            absent, buffer.data(), buffer.size()));
    }

    // Ranks that all joined a collective, two of which never reach its next
    // barrier: both are named, in rank order.
    void timeout_names_ranks_missing_from_a_later_barrier() {
        const dp::CollectiveTimeout timeout{0.2, {}};
        dp::ThreadRendezvous rendezvous(
            4, timeout.limit(), [&](std::span<const int> missing, std::string_view collective) {
                return timeout.message(missing, collective, {});
            });
        std::vector<std::string> errors(4);
        std::vector<std::thread> ranks;
        for (int rank = 0; rank < 4; ++rank) {
            ranks.emplace_back([&, rank] {
                float value = 0;
                try {
                    rendezvous.join(rank, &value, {"all-reduce", 1});
                    if (rank < 2) rendezvous.sync(rank);
                } catch (const dp::Error& error) {
                    errors[std::size_t(rank)] = error.what();
                }
            });
        }
        for (std::thread& thread : ranks) thread.join();
        for (int rank = 0; rank < 2; ++rank)
            QVERIFY2(errors[std::size_t(rank)].find(
                         "rank 2 and rank 3 did not reach the all-reduce within 0.2 s: they may be "
                         "paused, swapping or stuck; raise {collective_timeout_s} if their steps") !=
                         std::string::npos,
                     errors[std::size_t(rank)].c_str());
        QCOMPARE(errors[2], std::string());
        QCOMPARE(errors[3], std::string());
    }

    // A rank later than the others, but within the timeout, is waited for.
    void a_rank_late_within_the_timeout_is_waited_for() {
        const auto communicator = dp::make_thread_communicator(dp::AllReduceStrategy::ring, 3, {2.0, {}});
        std::vector<std::vector<float>> buffers(3, std::vector<float>(10, 1.f));
        const auto errors = run_ranks(*communicator, [&](int rank) {
            if (rank == 2) std::this_thread::sleep_for(std::chrono::milliseconds(300));
            auto& buffer = buffers[std::size_t(rank)];
            communicator->all_reduce_sum(rank, buffer.data(), buffer.size());
        });
        QVERIFY2(describe_errors(errors).isEmpty(), describe_errors(errors));
        for (const auto& buffer : buffers) QCOMPARE(buffer, std::vector<float>(10, 3.f));
    }

    // LeNet-sized gradients in five buckets (64 KB caps), reduced as a
    // replica does: a GradientReducer starts each bucket as backward finishes
    // it, on the rank's communication thread, then waits for them all. Every
    // rank ends with the very bits of the synchronous all_reduce_sum of each
    // bucket in turn, step after step on the same threads.
    void overlapped_buckets_give_the_synchronous_bits_data() { add_strategy_rows({2, 3, 4}); }
    void overlapped_buckets_give_the_synchronous_bits() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        const std::vector<ParameterInfo> params = lenet_parameters();
        const std::vector<GradientBucket> buckets = dp::plan_buckets(params, 64 << 10, 8 << 10);
        QCOMPARE(buckets.size(), std::size_t(5));
        const std::size_t total = params.back().offset + params.back().size;
        std::mt19937 rng(kSeed + std::uint32_t(ranks));
        std::vector<std::vector<float>> inputs;
        for (int rank = 0; rank < ranks; ++rank) inputs.push_back(uniform_floats(total, rng));

        auto expected = inputs;
        const auto synchronous = make_communicator(strategy, ranks);
        const auto errors = run_ranks(*synchronous, [&](int rank) {
            for (const GradientBucket& bucket : buckets)
                synchronous->all_reduce_sum(rank, expected[std::size_t(rank)].data() + bucket.offset,
                                            bucket.size);
        });
        QVERIFY2(describe_errors(errors).isEmpty(), describe_errors(errors));

        const auto overlapping = make_communicator(strategy, ranks, {}, true);
        for (int step = 0; step < 3; ++step) {
            auto buffers = inputs;
            const auto step_errors = run_ranks(*overlapping, [&](int rank) {
                dp::GradientReducer reducer(*overlapping, rank, buckets,
                                            buffers[std::size_t(rank)].data());
                reducer.begin_step();
                for (std::size_t param = params.size(); param-- > 0;)
                    reducer.on_gradients_final(param);
                reducer.finish_step();
            });
            QVERIFY2(describe_errors(step_errors).isEmpty(), describe_errors(step_errors));
            for (int rank = 0; rank < ranks; ++rank)
                QVERIFY2(same_bits(buffers[std::size_t(rank)], expected[std::size_t(rank)]),
                         "step " + QByteArray::number(step) + ", rank " + QByteArray::number(rank));
        }
    }

    // start_all_reduce_sum returns before the other ranks arrive: one thread
    // starts two all-reduces on every rank, then waits for each rank. (A
    // synchronous all_reduce_sum would wait there for the next rank, and time
    // out.)
    void started_all_reduces_do_not_wait_for_the_other_ranks() {
        const auto communicator = make_communicator("ring", 3, {30, {}}, true);
        std::vector<std::vector<float>> first, second;
        for (int rank = 0; rank < 3; ++rank) {
            first.emplace_back(5, float(rank + 1));
            second.emplace_back(7, float(10 * (rank + 1)));
        }
        for (int rank = 0; rank < 3; ++rank) {
            communicator->start_all_reduce_sum(rank, first[std::size_t(rank)].data(), 5);
            communicator->start_all_reduce_sum(rank, second[std::size_t(rank)].data(), 7);
        }
        for (int rank = 0; rank < 3; ++rank) communicator->wait_all(rank);
        for (int rank = 0; rank < 3; ++rank) {
            QCOMPARE(first[std::size_t(rank)], std::vector<float>(5, 6.f));
            QCOMPARE(second[std::size_t(rank)], std::vector<float>(7, 60.f));
        }
    }

    // Synchronous collectives between started ones (synchronized BatchNorm's
    // all-reduces in backward, a broadcast) run after the rank's started
    // all-reduces, so every rank calls the strategy's collectives in the
    // same order and every result is right. Small integers: exact sums.
    void synchronous_collectives_follow_the_started_ones_data() { add_strategy_rows({2, 3, 4}); }
    void synchronous_collectives_follow_the_started_ones() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        const auto communicator = make_communicator(strategy, ranks, {}, true);
        // Per rank: started, synchronous, started, broadcast from the last rank.
        auto buffers = std::vector<std::vector<std::vector<float>>>(std::size_t(ranks));
        for (int rank = 0; rank < ranks; ++rank)
            for (int call = 0; call < 4; ++call)
                buffers[std::size_t(rank)].emplace_back(std::size_t(3 + call), float(rank + 1 + call));
        const auto errors = run_ranks(*communicator, [&](int rank) {
            auto& mine = buffers[std::size_t(rank)];
            for (int round = 0; round < 50; ++round) {
                for (int call = 0; call < 4; ++call)
                    std::fill(mine[std::size_t(call)].begin(), mine[std::size_t(call)].end(),
                              float(rank + 1 + call));
                communicator->start_all_reduce_sum(rank, mine[0].data(), mine[0].size());
                communicator->all_reduce_sum(rank, mine[1].data(), mine[1].size());
                communicator->start_all_reduce_sum(rank, mine[2].data(), mine[2].size());
                communicator->broadcast(rank, mine[3].data(), mine[3].size(), ranks - 1);
                communicator->wait_all(rank);
            }
        });
        QVERIFY2(describe_errors(errors).isEmpty(), describe_errors(errors));
        for (int rank = 0; rank < ranks; ++rank) {
            for (int call = 0; call < 3; ++call) {
                float sum = 0;
                for (int other = 0; other < ranks; ++other) sum += float(other + 1 + call);
                QCOMPARE(buffers[std::size_t(rank)][std::size_t(call)],
                         std::vector<float>(std::size_t(3 + call), sum));
            }
            QCOMPARE(buffers[std::size_t(rank)][3], std::vector<float>(6, float(ranks + 3)));
        }
    }

    // Ranks that disagree on a call throw, all of them, instead of reading past
    // a shorter buffer or waiting forever.
    void calls_out_of_step_throw_on_every_rank_data() { add_strategy_rows({2, 3}); }
    void calls_out_of_step_throw_on_every_rank() {
        QFETCH(QString, strategy);
        QFETCH(int, ranks);
        const auto communicator = make_communicator(strategy, ranks);
        std::vector<std::vector<float>> buffers(std::size_t(ranks), std::vector<float>(8));
        const auto errors = run_ranks(*communicator, [&](int rank) {
            float* data = buffers[std::size_t(rank)].data();
            if (rank == 1)
                communicator->all_reduce_sum(rank, data, 7);
            else
                communicator->all_reduce_sum(rank, data, 8);
        });
        for (const std::string& error : errors)
            QVERIFY2(error.find("out of step") != std::string::npos, error.c_str());

        const auto mixed = make_communicator(strategy, ranks);
        const auto mixed_errors = run_ranks(*mixed, [&](int rank) {
            float* data = buffers[std::size_t(rank)].data();
            if (rank == 0)
                mixed->broadcast(rank, data, 8, 0);
            else
                mixed->all_reduce_sum(rank, data, 8);
        });
        for (const std::string& error : mixed_errors)
            QVERIFY2(error.find("out of step") != std::string::npos, error.c_str());
    }

    void bad_arguments_throw() {
        try {
            dp::make_thread_communicator(dp::parse_all_reduce_strategy("tree"), 2);
            QFAIL("no error for an unknown strategy");
        } catch (const dp::Error& error) {
            QVERIFY2(std::string(error.what()).find("naive, ring") != std::string::npos,
                     error.what());
        }
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::make_thread_communicator(dp::AllReduceStrategy::ring, 0));
        const auto communicator = dp::make_thread_communicator(dp::AllReduceStrategy::ring, 1);
        QCOMPARE(communicator->name(), std::string("ring"));
        QCOMPARE(communicator->size(), 1);
        float value = 3.f;
        QVERIFY_THROWS_EXCEPTION(dp::Error, communicator->all_reduce_sum(1, &value, 1));
        QVERIFY_THROWS_EXCEPTION(dp::Error, communicator->broadcast(0, &value, 1, 1));
        communicator->all_reduce_sum(0, &value, 1);
        QCOMPARE(value, 3.f);
    }

    // Every schedule (the thread communicators' and the GPU replicas'): within
    // a step no rank writes floats another rank reads or writes (so ranks may
    // run a step at once, on threads or streams); run in either rank order,
    // every rank ends with the documented sum bit for bit (naive: rank order;
    // ring: chunk c summed from rank c on), or the root's copy; a reduce's
    // root the sum from its own buffer on, the others their own.
    void collective_schedules_are_race_free_and_exact_data() {
        QTest::addColumn<QString>("collective");
        for (const char* collective : {"naive", "ring", "broadcast", "reduce"})
            QTest::newRow(collective) << collective;
    }
    void collective_schedules_are_race_free_and_exact() {
        QFETCH(QString, collective);
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> value(-1.f, 1.f);
        for (int ranks = 1; ranks <= 7; ++ranks)
            for (const std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(5),
                                            std::size_t(1001)}) {
                const int root = ranks - 1;
                const auto schedule =
                    collective == "broadcast" ? dp::CollectiveSchedule::broadcast(ranks, count, root)
                    : collective == "reduce"  ? dp::CollectiveSchedule::reduce(ranks, count, root)
                                              : dp::CollectiveSchedule::all_reduce(
                                                   collective.toStdString(), ranks, count);
                std::vector<std::vector<float>> inputs(static_cast<std::size_t>(ranks), std::vector<float>(count));
                for (auto& input : inputs)
                    for (float& x : input) x = value(rng);
                std::vector<float> expected(count);
                for (std::size_t i = 0; i < count; ++i) {
                    if (collective == "broadcast") {
                        expected[i] = inputs[std::size_t(root)][i];
                        continue;
                    }
                    int first = 0;  // ring: the chunk c holding i, [count*c/N, count*(c+1)/N)
                    while (collective == "ring" && count * std::size_t(first + 1) / std::size_t(ranks) <= i)
                        ++first;
                    if (collective == "reduce") {  // the root's, then the others' in rank order
                        float sum = inputs[std::size_t(root)][i];
                        for (int k = 0; k < ranks; ++k)
                            if (k != root) sum += inputs[std::size_t(k)][i];
                        expected[i] = sum;
                        continue;
                    }
                    float sum = inputs[std::size_t(first)][i];
                    for (int k = 1; k < ranks; ++k) sum += inputs[std::size_t((first + k) % ranks)][i];
                    expected[i] = sum;
                }
                for (const bool reversed : {false, true}) {
                    auto buffers = inputs;
                    for (int step = 0; step < schedule.steps(); ++step) {
                        check_step_is_race_free(schedule, ranks, step);
                        for (int k = 0; k < ranks; ++k) {
                            const int rank = reversed ? ranks - 1 - k : k;
                            for (int t = 0; t < schedule.transfers(rank, step); ++t) {
                                const auto transfer = schedule.transfer(rank, step, t);
                                for (std::size_t i = transfer.begin; i < transfer.end; ++i) {
                                    const float source = buffers[std::size_t(transfer.source)][i];
                                    float& own = buffers[std::size_t(rank)][i];
                                    own = transfer.kind == dp::ChunkTransfer::Kind::add ? own + source
                                                                                        : source;
                                }
                            }
                        }
                    }
                    for (int rank = 0; rank < ranks; ++rank)
                        QVERIFY2(buffers[std::size_t(rank)] ==
                                     (collective == "reduce" && rank != root ? inputs[std::size_t(rank)]
                                                                             : expected),
                                 qPrintable(QString("%1 ranks, %2 floats, rank %3")
                                                .arg(ranks).arg(count).arg(rank)));
                }
            }
    }

    // Buckets on LeNet for several caps: every parameter in exactly one bucket,
    // buckets in reverse parameter order, each a contiguous slice right below
    // the one before, caps respected except by a lone parameter, and every
    // bucket but the last as full as the next parameter allows.
    void bucket_plan_covers_lenet_data() {
        QTest::addColumn<qulonglong>("bucket_bytes");
        QTest::addColumn<qulonglong>("first_bucket_bytes");
        constexpr qulonglong KB = 1024, MB = 1024 * KB;
        QTest::newRow("DDP defaults: 25 MB, 1 MB") << 25 * MB << 1 * MB;
        QTest::newRow("64 KB, 8 KB") << 64 * KB << 8 * KB;
        QTest::newRow("400 KB, 1 KB") << 400 * KB << 1 * KB;
        QTest::newRow("first larger: 4 KB, 500 KB") << 4 * KB << 500 * KB;
        QTest::newRow("one float") << qulonglong(4) << qulonglong(4);
        QTest::newRow("zero") << qulonglong(0) << qulonglong(0);
    }
    void bucket_plan_covers_lenet() {
        QFETCH(qulonglong, bucket_bytes);
        QFETCH(qulonglong, first_bucket_bytes);
        const std::vector<ParameterInfo> params = lenet_parameters();
        const std::vector<GradientBucket> buckets =
            dp::plan_buckets(params, bucket_bytes, first_bucket_bytes);
        QVERIFY(!buckets.empty());
        QCOMPARE(buckets.front().last_param, params.size() - 1);
        QCOMPARE(buckets.back().first_param, std::size_t(0));
        QCOMPARE(buckets.back().offset, std::size_t(0));
        for (std::size_t b = 0; b < buckets.size(); ++b) {
            const GradientBucket& bucket = buckets[b];
            const QByteArray where =
                "bucket " + QByteArray::number(qulonglong(b)) + " " + describe(bucket);
            QVERIFY2(bucket.first_param <= bucket.last_param, where);
            QVERIFY2(bucket.offset == params[bucket.first_param].offset, where);
            QVERIFY2(bucket.offset + bucket.size ==
                         params[bucket.last_param].offset + params[bucket.last_param].size,
                     where);
            if (b > 0) {
                QVERIFY2(bucket.last_param + 1 == buckets[b - 1].first_param, where);
                QVERIFY2(bucket.offset + bucket.size == buckets[b - 1].offset, where);
            }
            const std::size_t cap = b == 0 ? first_bucket_bytes : bucket_bytes;
            QVERIFY2(bucket.size * sizeof(float) <= cap || bucket.first_param == bucket.last_param,
                     where);
            if (b + 1 < buckets.size())
                QVERIFY2((bucket.size + params[bucket.first_param - 1].size) * sizeof(float) > cap,
                         where);
        }
    }

    // 64 KB buckets after an 8 KB first one, worked out by hand: fc1.weight
    // (400 KB) and conv2.weight (100 KB) are over the cap and get a bucket each;
    // conv2.bias is alone because conv2.weight does not fit beside it.
    void bucket_plan_small_caps_on_lenet() {
        const std::vector<GradientBucket> buckets =
            dp::plan_buckets(lenet_parameters(), 64 << 10, 8 << 10);
        const std::vector<GradientBucket> expected = {
            {127650, 1418, 5, 7},   // fc1.bias, fc2.weight, fc2.bias: 5,672 bytes
            {25250, 102400, 4, 4},  // fc1.weight
            {25200, 50, 3, 3},      // conv2.bias
            {200, 25000, 2, 2},     // conv2.weight
            {0, 200, 0, 1},         // conv1.weight, conv1.bias
        };
        QCOMPARE(buckets, expected);
        QCOMPARE(dp::plan_buckets(lenet_parameters(), 25 << 20, 1 << 20),
                 (std::vector<GradientBucket>{{0, 129068, 0, 7}}));
        QVERIFY(dp::plan_buckets({}, 25 << 20, 1 << 20).empty());
    }

    // Walking backward's order (last parameter first), the reducer starts each
    // bucket's all-reduce exactly once, in bucket order, as soon as all its
    // parameters are final, and waits for them before the step ends. The
    // last bucket, final only when backward ends, is reduced at once.
    void reducer_starts_each_bucket_once_its_gradients_are_final() {
        const std::vector<ParameterInfo> params = lenet_parameters();
        const std::vector<GradientBucket> buckets = dp::plan_buckets(params, 64 << 10, 8 << 10);
        std::vector<float> gradients(params.back().offset + params.back().size);
        RecordingCommunicator communicator;
        dp::GradientReducer reducer(communicator, 0, buckets, gradients.data());
        reducer.begin_step();
        for (std::size_t param = params.size(); param-- > 0;) {
            reducer.on_gradients_final(param);
            // Every bucket whose parameters are all final has started, no other.
            std::size_t ready = 0;
            while (ready < buckets.size() && buckets[ready].first_param >= param) ++ready;
            QCOMPARE(communicator.started.size(), ready);
        }
        QCOMPARE(communicator.waits, 0);
        QCOMPARE(communicator.synchronous, 1);
        reducer.finish_step();
        QCOMPARE(communicator.waits, 1);
        QCOMPARE(communicator.synchronous, 1);
        QCOMPARE(communicator.started.size(), buckets.size());
        for (std::size_t i = 0; i < buckets.size(); ++i) {
            QCOMPARE(communicator.started[i].first, gradients.data() + buckets[i].offset);
            QCOMPARE(communicator.started[i].second, buckets[i].size);
        }
    }

    void bucket_plan_rejects_a_gap() {
        std::vector<ParameterInfo> params = lenet_parameters();
        params[3].offset += 1;
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::plan_buckets(params, 25 << 20, 1 << 20));
    }

    // Issue 41: records of ranks srun started said "mpirun". The variables
    // each launcher sets, as a real Slurm 22.05 and Open MPI 4.1 set them.
    void mpi_launcher_from_environment_data() {
        QTest::addColumn<QStringList>("variables");
        QTest::addColumn<QString>("launcher");
        QTest::newRow("mpirun") << QStringList{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK"} << "mpirun";
        QTest::newRow("srun --mpi=pmix") << QStringList{"SLURM_JOB_ID", "SLURM_STEP_ID", "PMIX_RANK"}
                                         << "srun";
        // The batch script's mpirun: the allocation's variables, no step's.
        QTest::newRow("mpirun in an sbatch job")
            << QStringList{"SLURM_JOB_ID", "SLURM_PROCID", "OMPI_COMM_WORLD_SIZE"} << "mpirun";
        // A node mpirun's daemon reached through srun: that step's variables too.
        QTest::newRow("mpirun's daemon started by srun")
            << QStringList{"SLURM_JOB_ID", "SLURM_STEP_ID", "OMPI_COMM_WORLD_SIZE"} << "mpirun";
        QTest::newRow("another mpiexec") << QStringList{"PMI_RANK"} << "mpirun";
    }
    void mpi_launcher_from_environment() {
        QFETCH(QStringList, variables);
        QFETCH(QString, launcher);
        const auto detected = dp::detect_mpi_launcher([&](const char* name) -> const char* {
            return variables.contains(QLatin1String(name)) ? "0" : nullptr;
        });
        QCOMPARE(QString(dp::mpi_launcher_name(detected)), launcher);
    }
};

QTEST_APPLESS_MAIN(ParallelTest)
#include "test_parallel.moc"
