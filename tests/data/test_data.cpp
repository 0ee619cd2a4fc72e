// Tests of the IDX reader, the MNIST-format loader and the epoch sampler.

#include <zlib.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "core/setting_ref.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "data/idx_file.h"
#include "largest_allocation.h"
#include "config/train_config.h"
#include "models/model_registry.h"
#include "train/trainer.h"

namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;
const char* const kSystemFashionMnistDir = "/usr/share/datasets/fashion-mnist";

enum class Encoding { Plain, Gzip };

QByteArray idx_bytes(std::uint32_t magic, std::initializer_list<std::uint32_t> dims,
                     const QByteArray& payload) {
    QByteArray bytes;
    auto append_big_endian = [&bytes](std::uint32_t value) {
        for (int shift = 24; shift >= 0; shift -= 8) bytes.append(char((value >> shift) & 0xFF));
    };
    append_big_endian(magic);
    for (std::uint32_t dim : dims) append_big_endian(dim);
    return bytes + payload;
}

void write_file(const QString& path, const QByteArray& bytes, Encoding encoding) {
    if (encoding == Encoding::Gzip) {
        gzFile gz = gzopen(QFile::encodeName(path).constData(), "wb");
        QVERIFY(gz != nullptr);
        if (!bytes.isEmpty()) QCOMPARE(gzwrite(gz, bytes.constData(), unsigned(bytes.size())), int(bytes.size()));
        QCOMPARE(gzclose(gz), Z_OK);
        return;
    }
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
}

QByteArray read_file(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The fixture pixel of sample `index` at `offset`: varied, and covering 0 and 255.
std::uint8_t fixture_pixel(int index, int offset) {
    return std::uint8_t((index * 37 + offset * 11) % 256);
}

QByteArray fixture_pixels(int count, int rows, int cols) {
    QByteArray pixels;
    for (int index = 0; index < count; ++index)
        for (int offset = 0; offset < rows * cols; ++offset) pixels.append(char(fixture_pixel(index, offset)));
    return pixels;
}

QByteArray fixture_labels(int count) {
    QByteArray labels;
    for (int index = 0; index < count; ++index) labels.append(char((index * 7) % 10));
    return labels;
}

QByteArray image_file(int count, int rows, int cols) {
    return idx_bytes(kImagesMagic, {std::uint32_t(count), std::uint32_t(rows), std::uint32_t(cols)},
                     fixture_pixels(count, rows, cols));
}

QByteArray label_file(const QByteArray& labels) {
    return idx_bytes(kLabelsMagic, {std::uint32_t(labels.size())}, labels);
}

// Writes the four MNIST-format files of a small set into `dir`.
void write_mnist_set(const QString& dir, int train_count, int test_count, int rows, int cols,
                     Encoding encoding) {
    const QString suffix = encoding == Encoding::Gzip ? ".gz" : "";
    write_file(dir + "/train-images-idx3-ubyte" + suffix, image_file(train_count, rows, cols), encoding);
    write_file(dir + "/train-labels-idx1-ubyte" + suffix, label_file(fixture_labels(train_count)), encoding);
    write_file(dir + "/t10k-images-idx3-ubyte" + suffix, image_file(test_count, rows, cols), encoding);
    write_file(dir + "/t10k-labels-idx1-ubyte" + suffix, label_file(fixture_labels(test_count)), encoding);
}

// The message of the dp::Error that `action` throws, or an empty string.
template <typename Action>
QString error_of(Action&& action) {
    try {
        action();
    } catch (const dp::Error& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

void verify_error(const QString& message, const QStringList& expected_parts) {
    QVERIFY2(!message.isEmpty(), "no dp::Error was thrown");
    QVERIFY2(!message.contains('\n'), qPrintable("not one line: " + message));
    for (const QString& part : expected_parts)
        QVERIFY2(message.contains(part), qPrintable("'" + part + "' missing from: " + message));
}

std::filesystem::path fs_path(const QString& path) { return std::filesystem::path(path.toStdString()); }

void verify_fixture_set(const dp::Dataset& set, int count, int rows, int cols) {
    QCOMPARE(set.count, count);
    QCOMPARE(set.channels, 1);
    QCOMPARE(set.height, rows);
    QCOMPARE(set.width, cols);
    QCOMPARE(set.classes, 10);
    QCOMPARE(set.sample_size(), std::size_t(rows * cols));
    QCOMPARE(set.images.size(), std::size_t(count * rows * cols));
    QCOMPARE(set.labels.size(), std::size_t(count));
    for (int index = 0; index < count; ++index) {
        QCOMPARE(set.labels[index], (index * 7) % 10);
        for (int offset = 0; offset < rows * cols; ++offset)
            QCOMPARE(set.images[std::size_t(index * rows * cols + offset)],
                     float(fixture_pixel(index, offset)) / 255.0f);
    }
}

// A one-epoch run of `model` on the MNIST-format set in `dir`, on one CPU device.
dp::TrainConfig tiny_run(const QString& dir, const std::string& model) {
    dp::TrainConfig config;
    config.model = model;
    config.dataset = "mnist-format";
    config.data_dir = dir.toStdString();
    config.devices = {"cpu:0"};
    config.epochs = 1;
    config.batch_size = 4;
    return config;
}

// Trains tiny_run(dir, model): the failure's message, or an empty string when it trained.
QString training_failure(const QString& dir, const std::string& model) {
    const dp::TrainConfig config = tiny_run(dir, model);
    struct Failure : dp::TrainObserver {
        std::string message;
        void on_failed(const std::string& text) override { message = text; }
    } observer;
    const dp::RunOutcome outcome = dp::Trainer(config).run(observer);
    if (outcome == dp::RunOutcome::finished) return {};
    return observer.message.empty() ? QString("no message") : QString::fromStdString(observer.message);
}

// What the run checks before training: whether `model` takes the set's
// rows x cols images, as training_failure words it.
QString declaration_failure(const QString& dir, const std::string& model, int rows, int cols) {
    try {
        dp::require_model_takes_data(tiny_run(dir, model), {1, rows, cols}, 10);
    } catch (const dp::Error& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

std::vector<int> to_vector(std::span<const int> order) { return {order.begin(), order.end()}; }

}  // namespace

Q_DECLARE_METATYPE(Encoding)

class DataTest : public QObject {
    Q_OBJECT

private slots:
    // D26 (issue 32): images too small for LeNet said only "conv1: input 1x1 is
    // smaller than the kernel"; now the images' size, their folder, the
    // smallest size the model takes and the fix.
    void imagesTooSmallForTheModelNameTheirSizeAndTheFix() {
        const QString dir = temp_dir_.filePath("tiny-images");
        QVERIFY(QDir().mkpath(dir));
        write_mnist_set(dir, 8, 4, 1, 1, Encoding::Plain);
        const QString message = training_failure(dir, "lenet");
        QVERIFY2(message == "LeNet cannot take the 1x1 images of " + dir +
                                ": it takes images of at least 14x14 pixels. Choose Linear for {model} (it "
                                "takes any size), or images of at least 14x14",
                 qPrintable(message));
    }

    // Issue 44: MNISTNet on 28x14 images said "fc1: expects 0 input
    // features, got 80" (a 1-pixel map through a 2x2 max pool came out 1
    // pixel, not refused). Every model at every size from 1x1 to 8x8 and at
    // odd sizes either trains or is refused before training with the size it
    // takes, and the sizes it refuses are exactly those below that size.
    // ResNet-18 (11M parameters, seconds a run) is only declared: ResNet-18/8
    // has its every layer's geometry, with fewer channels, and trains.
    void everyModelTrainsOrNamesTheSizesItTakes() {
        const std::vector<std::pair<int, int>> sizes = {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6},
                                                        {7, 7}, {8, 8}, {28, 14}, {14, 28}, {13, 13},
                                                        {14, 14}, {15, 9}, {16, 16}, {17, 17}};
        const std::map<std::string, int> least = {{"lenet", 14}, {"mnistnet", 16}};  // others: any
        for (const auto& [rows, cols] : sizes) {
            const QString dir = temp_dir_.filePath(QString("images-%1x%2").arg(rows).arg(cols));
            QVERIFY(QDir().mkpath(dir));
            write_mnist_set(dir, 4, 2, rows, cols, Encoding::Plain);
            for (const dp::ModelInfo& model : dp::model_registry()) {
                const QString message =
                    model.name == "resnet18" ? declaration_failure(dir, model.name, rows, cols)
                                             : training_failure(dir, model.name);
                const auto smallest = least.find(model.name);
                const bool fits = smallest == least.end() || std::min(rows, cols) >= smallest->second;
                const QString where = QString::fromStdString(model.name) + QString(" at %1x%2: ").arg(rows).arg(cols);
                if (fits) {
                    QVERIFY2(message.isEmpty(), qPrintable(where + message));
                    continue;
                }
                const QString expected = QString("%1 cannot take the %2x%3 images of %4: it takes images of at "
                                                 "least %5x%5 pixels. ")
                                             .arg(QString::fromStdString(model.title))
                                             .arg(rows)
                                             .arg(cols)
                                             .arg(dir)
                                             .arg(smallest->second);
                QVERIFY2(message.startsWith(expected), qPrintable(where + message));
            }
        }
    }

    // D25 (issue 32): a folder name over 255 bytes said "not a directory", and
    // a dangling or looping link "file not found (install dataset-fashion-mnist
    // ...)": advice that fixes nothing. Each now says what is wrong with the path.
    void unreachablePathsSayWhyNotInstallTheDataSet() {
        const auto load_error = [](const std::string& dir) {
            try {
                dp::load_mnist_format(dir, 0, 0);
            } catch (const dp::Error& error) {
                return QString::fromStdString(error.what());
            }
            return QString();
        };
        const std::string base = temp_dir_.filePath("paths").toStdString();
        std::filesystem::create_directories(base);

        const QString long_name = load_error(base + "/" + std::string(300, 'a') + "/data");
        QVERIFY2(long_name.contains("a name in the path is 300 bytes, over the 255 a file system allows: shorten it"),
                 qPrintable(long_name));

        std::filesystem::create_symlink(base + "/nowhere", base + "/dangling");
        const QString dangling = load_error(base + "/dangling");
        QVERIFY2(dangling.contains("is a symbolic link to '" + QString::fromStdString(base) +
                                   "/nowhere', which does not exist: fix or remove the link") &&
                     !dangling.contains("install"),
                 qPrintable(dangling));

        std::filesystem::create_symlink(base + "/loop-b", base + "/loop-a");
        std::filesystem::create_symlink(base + "/loop-a", base + "/loop-b");
        const QString loop = load_error(base + "/loop-a");
        QVERIFY2(loop.contains("its symbolic links loop") && !loop.contains("install"), qPrintable(loop));

        // A data file that is a dangling link, inside a real folder.
        const std::string folder = base + "/set";
        std::filesystem::create_directories(folder);
        write_mnist_set(QString::fromStdString(folder), 8, 4, 28, 28, Encoding::Plain);
        std::filesystem::remove(folder + "/train-images-idx3-ubyte");
        std::filesystem::create_symlink(folder + "/gone", folder + "/train-images-idx3-ubyte");
        const QString file = load_error(folder);
        QVERIFY2(file.contains("train-images-idx3-ubyte: is a symbolic link to '") &&
                     file.contains("gone', which does not exist") && !file.contains("install"),
                 qPrintable(file));

        // A part of the path that is a file, and a plain missing folder (the
        // install hint stays where it is the fix).
        const QString through_file = load_error(folder + "/t10k-labels-idx1-ubyte/more");
        QVERIFY2(through_file.contains("t10k-labels-idx1-ubyte' is a file, not a folder: fix the path"),
                 qPrintable(through_file));
        const QString missing = load_error(base + "/absent");
        QVERIFY2(missing.contains("data directory not found (install dataset-fashion-mnist"), qPrintable(missing));
    }

    void initTestCase() { QVERIFY(temp_dir_.isValid()); }

    // --- IDX files -------------------------------------------------------------

    void reads_idx_files_data() {
        QTest::addColumn<Encoding>("encoding");
        QTest::newRow("plain") << Encoding::Plain;
        QTest::newRow("gzip") << Encoding::Gzip;
    }
    void reads_idx_files() {
        QFETCH(Encoding, encoding);
        const QString images_path = file_path("images-idx3");
        const QString labels_path = file_path("labels-idx1");
        write_file(images_path, image_file(4, 3, 5), encoding);
        write_file(labels_path, label_file(fixture_labels(4)), encoding);

        const dp::IdxImages images = dp::read_idx_images(fs_path(images_path));
        QCOMPARE(images.count, 4);
        QCOMPARE(images.rows, 3);
        QCOMPARE(images.cols, 5);
        const QByteArray expected = fixture_pixels(4, 3, 5);
        QCOMPARE(images.pixels, std::vector<std::uint8_t>(expected.begin(), expected.end()));

        const std::vector<std::uint8_t> labels = dp::read_idx_labels(fs_path(labels_path));
        QCOMPARE(labels, (std::vector<std::uint8_t>{0, 7, 4, 1}));
    }

    void reads_empty_idx_files() {
        const QString images_path = file_path("empty-images");
        write_file(images_path, image_file(0, 28, 28), Encoding::Plain);
        const dp::IdxImages images = dp::read_idx_images(fs_path(images_path));
        QCOMPARE(images.count, 0);
        QVERIFY(images.pixels.empty());
    }

    void rejects_bad_idx_files_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<Encoding>("encoding");
        QTest::addColumn<bool>("as_labels");
        QTest::addColumn<QStringList>("expected_parts");

        const QByteArray images = image_file(3, 2, 2);
        const QByteArray labels = label_file(fixture_labels(5));
        const QByteArray gzipped_images = gzipped(images);

        QTest::newRow("label file read as images")
            << labels << Encoding::Plain << false
            << QStringList{"wrong magic number 0x00000801, expected 0x00000803", "not an IDX image file"};
        QTest::newRow("image file read as labels")
            << images << Encoding::Gzip << true
            << QStringList{"wrong magic number 0x00000803, expected 0x00000801", "not an IDX label file"};
        QTest::newRow("text file") << QByteArray("hello world\n") << Encoding::Plain << false
                                   << QStringList{"wrong magic number 0x68656c6c"};
        QTest::newRow("empty file") << QByteArray() << Encoding::Plain << false
                                    << QStringList{"truncated header", "after 0 bytes"};
        QTest::newRow("truncated magic") << images.left(2) << Encoding::Gzip << false
                                         << QStringList{"truncated header", "after 2 bytes"};
        QTest::newRow("truncated image header")
            << images.left(10) << Encoding::Plain << false
            << QStringList{"truncated header", "after 10 bytes", "header has 16"};
        QTest::newRow("truncated label header") << labels.left(6) << Encoding::Gzip << true
                                                << QStringList{"truncated header", "header has 8"};
        QTest::newRow("truncated pixels")
            << images.left(16 + 5) << Encoding::Plain << false
            << QStringList{"truncated: header says 3 images of 2x2 but the file ends after 1 of them"};
        QTest::newRow("truncated pixels gzip")
            << images.left(16 + 11) << Encoding::Gzip << false
            << QStringList{"truncated: header says 3 images of 2x2 but the file ends after 2 of them"};
        QTest::newRow("truncated labels")
            << labels.left(8 + 3) << Encoding::Gzip << true
            << QStringList{"truncated: header says 5 labels but the file ends after 3 of them"};
        QTest::newRow("data after the images")
            << images + QByteArray("xyz") << Encoding::Gzip << false
            << QStringList{"unexpected data after the 3 images of 2x2"};
        QTest::newRow("absurd image count")
            << idx_bytes(kImagesMagic, {0xFFFFFFFF, 28, 28}, {}) << Encoding::Plain << false
            << QStringList{"header says 4294967295 images of 28x28, which would take 15680 GiB",
                           "the limit is 2 GiB"};
        QTest::newRow("absurd image size")
            << idx_bytes(kImagesMagic, {1, 0xFFFFFFFF, 0xFFFFFFFF}, {}) << Encoding::Plain << false
            << QStringList{"implausible size in header", "1 images of 4294967295x4294967295"};
        QTest::newRow("zero image size") << idx_bytes(kImagesMagic, {4, 0, 28}, {}) << Encoding::Gzip
                                         << false << QStringList{"implausible size in header", "4 images of 0x28"};
        QTest::newRow("absurd label count")
            << idx_bytes(kLabelsMagic, {0xFFFFFFFF}, {}) << Encoding::Plain << true
            << QStringList{"header says 4294967295 labels, which would take 20 GiB", "the limit is 2 GiB"};
        QTest::newRow("random bytes after a gzip header")
            << random_gzip_body() << Encoding::Plain << false << QStringList{"corrupt gzip stream"};
        QByteArray bad_checksum = gzipped_images;
        bad_checksum[bad_checksum.size() - 8] = char(bad_checksum[bad_checksum.size() - 8] ^ 0x01);
        QTest::newRow("gzip checksum mismatch")
            << bad_checksum << Encoding::Plain << false << QStringList{"corrupt gzip stream", "incorrect data check"};
        QTest::newRow("gzip stream cut in the data")
            << gzipped_images.left(15) << Encoding::Plain << false << QStringList{"truncated"};
        QTest::newRow("gzip stream cut before its checksum")
            << gzipped_images.left(gzipped_images.size() - 4) << Encoding::Plain << false
            << QStringList{"truncated gzip stream"};
        QByteArray bad_length = gzipped_images;
        bad_length[bad_length.size() - 1] = char(bad_length[bad_length.size() - 1] ^ 0x01);
        QTest::newRow("gzip length mismatch")
            << bad_length << Encoding::Plain << false << QStringList{"corrupt gzip stream", "incorrect length check"};
        QTest::newRow("data after the gzip stream")
            << gzipped_images + QByteArray("xyz") << Encoding::Plain << false
            << QStringList{"unexpected data after the end of the gzip stream"};
    }
    void rejects_bad_idx_files() {
        QFETCH(QByteArray, bytes);
        QFETCH(Encoding, encoding);
        QFETCH(bool, as_labels);
        QFETCH(QStringList, expected_parts);
        const QString path = file_path(QString("bad-%1.idx").arg(QTest::currentDataTag()).replace(' ', '-'));
        write_file(path, bytes, encoding);

        const QString message = error_of([&] {
            if (as_labels) dp::read_idx_labels(fs_path(path));
            else dp::read_idx_images(fs_path(path));
        });
        verify_error(message, expected_parts + QStringList{path + ": "});
    }

    // zlib's gzread() took a stream cut before its trailer for a whole one
    // whenever the last read ended on the last block: large files passed.
    void rejects_gzip_without_its_trailer_data() {
        QTest::addColumn<int>("images");
        QTest::addColumn<int>("cut_bytes");
        for (const int images : {3, 2000}) {  // 2000 images of 28x28: 1.5 MB, over a read piece
            QTest::addRow("%d images, no CRC-32 and length", images) << images << 8;
            QTest::addRow("%d images, half the length", images) << images << 2;
            QTest::addRow("%d images, no length", images) << images << 4;
        }
    }
    void rejects_gzip_without_its_trailer() {
        QFETCH(int, images);
        QFETCH(int, cut_bytes);
        const QByteArray whole = gzipped(image_file(images, 28, 28));
        const QString path = file_path("cut-trailer.gz");
        write_file(path, whole.left(whole.size() - cut_bytes), Encoding::Plain);
        verify_error(error_of([&] { dp::read_idx_images(fs_path(path)); }),
                     {path + ": ", "truncated gzip stream"});

        write_file(path, whole, Encoding::Plain);
        QCOMPARE(dp::read_idx_images(fs_path(path)).count, images);
    }

    // A header's claim is believed only as far as the data backs it, and one
    // claiming more than the memory limit is refused before reading on.
    void refuses_lying_headers_without_allocating_their_claims_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<Encoding>("encoding");
        QTest::addColumn<bool>("as_labels");
        QTest::addColumn<QStringList>("expected_parts");
        const QByteArray tiny_payload(10, '\0');
        for (const Encoding encoding : {Encoding::Plain, Encoding::Gzip}) {
            const char* name = encoding == Encoding::Plain ? "plain" : "gzip";
            // 500,000 images of 28x28 would take 1.83 GiB loaded: under the limit.
            QTest::addRow("%s: images claimed under the limit", name)
                << idx_bytes(kImagesMagic, {500000, 28, 28}, tiny_payload) << encoding << false
                << QStringList{"truncated: header says 500000 images of 28x28", "after 0 of them"};
            QTest::addRow("%s: labels claimed under the limit", name)
                << idx_bytes(kLabelsMagic, {400000000}, tiny_payload) << encoding << true
                << QStringList{"truncated: header says 400000000 labels", "after 10 of them"};
            // 600,000 images: 470 MB of pixels, 2.19 GiB as bytes and floats.
            QTest::addRow("%s: images claimed over the limit", name)
                << idx_bytes(kImagesMagic, {600000, 28, 28}, tiny_payload) << encoding << false
                << QStringList{"header says 600000 images of 28x28, which would take 2.19 GiB of memory loaded",
                               "the limit is 2 GiB", "corrupt header?"};
        }
    }
    void refuses_lying_headers_without_allocating_their_claims() {
        QFETCH(QByteArray, bytes);
        QFETCH(Encoding, encoding);
        QFETCH(bool, as_labels);
        QFETCH(QStringList, expected_parts);
        const QString path = file_path("lying-header.idx");
        write_file(path, bytes, encoding);

        reset_largest_allocation();
        const QString message = error_of([&] {
            if (as_labels) dp::read_idx_labels(fs_path(path));
            else dp::read_idx_images(fs_path(path));
        });
        const std::size_t largest = largest_allocation();
        verify_error(message, expected_parts + QStringList{path + ": "});
        // A read piece (1 MiB) and the reader's buffers, not the claim.
        QVERIFY2(largest <= std::size_t(2) << 20,
                 qPrintable(QString("allocated %1 bytes at once").arg(largest)));
    }

    // gzip -d reads concatenated members as one stream (cat a.gz b.gz).
    void reads_concatenated_gzip_members() {
        const QByteArray images = image_file(4, 3, 5);
        const QString path = file_path("two-members.gz");
        write_file(path, gzipped(images.left(7)) + gzipped(images.mid(7)), Encoding::Plain);
        const dp::IdxImages read = dp::read_idx_images(fs_path(path));
        QCOMPARE(read.count, 4);
        const QByteArray expected = fixture_pixels(4, 3, 5);
        QCOMPARE(read.pixels, std::vector<std::uint8_t>(expected.begin(), expected.end()));
    }

    void rejects_missing_file_and_directory() {
        const QString missing = file_path("no-such-images-idx3-ubyte.gz");
        verify_error(error_of([&] { dp::read_idx_images(fs_path(missing)); }),
                     {missing, "file not found",
                      QString::fromStdString("install dataset-fashion-mnist, or give " + dp::setting("data_dir"))});
        verify_error(error_of([&] { dp::read_idx_labels(fs_path(missing)); }), {missing, "file not found"});

        const QString directory = file_path("a-directory");
        QVERIFY(QDir().mkpath(directory));
        verify_error(error_of([&] { dp::read_idx_images(fs_path(directory)); }),
                     {directory, "not a regular file"});
    }

    // --- MNIST-format sets -------------------------------------------------------

    void loads_mnist_set_data() {
        QTest::addColumn<Encoding>("encoding");
        QTest::newRow("plain") << Encoding::Plain;
        QTest::newRow("gzip") << Encoding::Gzip;
    }
    void loads_mnist_set() {
        QFETCH(Encoding, encoding);
        const QString dir = new_dir();
        write_mnist_set(dir, 7, 4, 3, 2, encoding);

        const dp::TrainTestSets all = dp::load_mnist_format(fs_path(dir));
        verify_fixture_set(all.train, 7, 3, 2);
        verify_fixture_set(all.test, 4, 3, 2);

        const dp::TrainTestSets limited = dp::load_mnist_format(fs_path(dir), 5, 1);
        verify_fixture_set(limited.train, 5, 3, 2);
        verify_fixture_set(limited.test, 1, 3, 2);

        const dp::TrainTestSets over_limit = dp::load_mnist_format(fs_path(dir), 100, 4);
        verify_fixture_set(over_limit.train, 7, 3, 2);
        verify_fixture_set(over_limit.test, 4, 3, 2);
    }

    void prefers_gzip_file_when_both_exist() {
        const QString dir = new_dir();
        write_mnist_set(dir, 6, 2, 2, 2, Encoding::Gzip);
        write_mnist_set(dir, 3, 1, 2, 2, Encoding::Plain);
        const dp::TrainTestSets sets = dp::load_mnist_format(fs_path(dir));
        QCOMPARE(sets.train.count, 6);
        QCOMPARE(sets.test.count, 2);
    }

    void rejects_bad_mnist_sets() {
        const QString dir = new_dir();
        write_mnist_set(dir, 3, 2, 2, 2, Encoding::Gzip);
        const QString train_images = dir + "/train-images-idx3-ubyte.gz";
        const QString train_labels = dir + "/train-labels-idx1-ubyte.gz";
        const QString test_images = dir + "/t10k-images-idx3-ubyte.gz";
        const QString test_labels = dir + "/t10k-labels-idx1-ubyte.gz";
        auto load = [&] { dp::load_mnist_format(fs_path(dir)); };

        write_file(train_labels, label_file(fixture_labels(4)), Encoding::Gzip);
        verify_error(error_of(load), {train_images, train_labels, "has 3 images", "has 4 labels"});

        write_file(train_labels, label_file(QByteArray::fromRawData("\x01\x0a\x02", 3)), Encoding::Gzip);
        verify_error(error_of(load), {train_labels, "label 10 at index 1", "outside 0..9"});
        write_file(train_labels, label_file(fixture_labels(3)), Encoding::Gzip);

        write_file(test_images, image_file(2, 3, 3), Encoding::Gzip);
        verify_error(error_of(load), {test_images, "images are 3x3", "training images are 2x2"});
        write_file(test_images, image_file(0, 2, 2), Encoding::Gzip);
        write_file(test_labels, label_file({}), Encoding::Gzip);
        verify_error(error_of(load), {test_images, "holds no images"});

        QVERIFY(QFile::remove(test_labels));
        verify_error(error_of(load), {test_labels, "file not found", QString::fromStdString(dp::setting("data_dir"))});

        const QString missing_dir = dir + "/missing";
        verify_error(error_of([&] { dp::load_mnist_format(fs_path(missing_dir)); }),
                     {missing_dir, "data directory not found", "install dataset-fashion-mnist"});
        verify_error(error_of([&] { dp::load_mnist_format(fs_path(train_images)); }),
                     {train_images, "not a directory"});
        verify_error(error_of([&] { dp::load_mnist_format(fs_path(dir), -1, 0); }), {"limits", "-1"});
    }

    void default_dir_follows_dp_data_dir() {
        const bool was_set = qEnvironmentVariableIsSet("DP_DATA_DIR");
        const QByteArray previous = qgetenv("DP_DATA_DIR");

        qputenv("DP_DATA_DIR", "/somewhere/else");
        QCOMPARE(dp::default_fashion_mnist_dir(), std::filesystem::path("/somewhere/else"));
        qputenv("DP_DATA_DIR", "");
        QCOMPARE(dp::default_fashion_mnist_dir(), std::filesystem::path(kSystemFashionMnistDir));
        qunsetenv("DP_DATA_DIR");
        QCOMPARE(dp::default_fashion_mnist_dir(), std::filesystem::path(kSystemFashionMnistDir));

        if (was_set) qputenv("DP_DATA_DIR", previous);
    }

    void loads_fashion_mnist_with_limits() {
        skip_without_fashion_mnist();
        const dp::TrainTestSets sets = dp::load_mnist_format(kSystemFashionMnistDir, 100, 50);
        verify_fashion_mnist_set(sets.train, 100);
        verify_fashion_mnist_set(sets.test, 50);
        // The first labels of each split as published (9 = ankle boot).
        QCOMPARE(std::vector<std::int32_t>(sets.train.labels.begin(), sets.train.labels.begin() + 10),
                 (std::vector<std::int32_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
        QCOMPARE(std::vector<std::int32_t>(sets.test.labels.begin(), sets.test.labels.begin() + 10),
                 (std::vector<std::int32_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
    }

    void loads_full_fashion_mnist() {
        skip_without_fashion_mnist();
        QElapsedTimer timer;
        timer.start();
        const dp::TrainTestSets sets = dp::load_mnist_format(kSystemFashionMnistDir);
        qInfo("loaded the full Fashion-MNIST in %lld ms", static_cast<long long>(timer.elapsed()));
        verify_fashion_mnist_set(sets.train, 60000);
        verify_fashion_mnist_set(sets.test, 10000);
        // Fashion-MNIST is balanced: 6000 training images per class.
        std::vector<int> per_class(10, 0);
        for (std::int32_t label : sets.train.labels) ++per_class[std::size_t(label)];
        QCOMPARE(per_class, std::vector<int>(10, 6000));
    }

    // --- Epoch sampler -----------------------------------------------------------

    void sampler_without_shuffle_keeps_file_order() {
        dp::EpochSampler sampler(6, 123, false);
        QCOMPARE(to_vector(sampler.order(0)), (std::vector<int>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(to_vector(sampler.order(7)), (std::vector<int>{0, 1, 2, 3, 4, 5}));
    }

    void sampler_gives_permutations() {
        for (int count : {0, 1, 2, 7, 1000}) {
            dp::EpochSampler sampler(count, 99, true);
            for (int epoch = 0; epoch < 3; ++epoch) {
                std::vector<int> order = to_vector(sampler.order(epoch));
                std::sort(order.begin(), order.end());
                std::vector<int> identity(std::size_t(count), 0);
                std::iota(identity.begin(), identity.end(), 0);
                QCOMPARE(order, identity);
            }
        }
    }

    void sampler_is_reproducible() {
        dp::EpochSampler first(1000, 42, true), second(1000, 42, true);
        const std::vector<int> epoch3 = to_vector(first.order(3));
        QCOMPARE(to_vector(second.order(3)), epoch3);
        // An epoch's order does not depend on the epochs asked for before it.
        first.order(4);
        QCOMPARE(to_vector(first.order(3)), epoch3);

        QVERIFY(to_vector(first.order(4)) != epoch3);
        dp::EpochSampler other_seed(1000, 43, true);
        QVERIFY(to_vector(other_seed.order(3)) != epoch3);
    }

    // Pins the algorithm (seed mixing, mt19937_64, uniform draw, Fisher-Yates) so
    // every platform and every rank visits the data in this order.
    void sampler_order_is_pinned() {
        dp::EpochSampler sampler(10, 42, true);
        QCOMPARE(to_vector(sampler.order(0)), (std::vector<int>{2, 0, 4, 7, 8, 3, 5, 1, 9, 6}));
        QCOMPARE(to_vector(sampler.order(1)), (std::vector<int>{2, 8, 7, 3, 6, 4, 0, 9, 5, 1}));
        dp::EpochSampler seed_zero(10, 0, true);
        QCOMPARE(to_vector(seed_zero.order(0)), (std::vector<int>{6, 1, 2, 4, 7, 5, 3, 0, 9, 8}));
    }

    void sampler_is_uniform() {
        // Each of the 6 orders of 3 items should come up about equally often.
        dp::EpochSampler sampler(3, 7, true);
        std::map<std::vector<int>, int> seen;
        const int epochs = 6000;
        for (int epoch = 0; epoch < epochs; ++epoch) ++seen[to_vector(sampler.order(epoch))];
        QCOMPARE(seen.size(), std::size_t(6));
        for (const auto& [order, times] : seen)
            QVERIFY2(times > 850 && times < 1150, qPrintable(QString("an order came up %1 times").arg(times)));
    }

    void gather_batch_copies_samples() {
        dp::Dataset set;
        set.count = 4;
        set.height = 2;
        set.width = 3;
        for (int index = 0; index < set.count; ++index) {
            for (int offset = 0; offset < 6; ++offset) set.images.push_back(float(index * 10 + offset));
            set.labels.push_back(9 - index);
        }

        const std::vector<int> indices{3, 0, 3};
        std::vector<float> images(indices.size() * set.sample_size(), -1.0f);
        std::vector<std::int32_t> labels(indices.size(), -1);
        dp::gather_batch(set, indices, images.data(), labels.data());

        QCOMPARE(labels, (std::vector<std::int32_t>{6, 9, 6}));
        QCOMPARE(images, (std::vector<float>{30, 31, 32, 33, 34, 35, 0, 1, 2, 3, 4, 5, 30, 31, 32, 33, 34, 35}));

        const std::vector<int> out_of_range{1, 4};
        QVERIFY_THROWS_EXCEPTION(std::out_of_range,
                                 dp::gather_batch(set, out_of_range, images.data(), labels.data()));
    }

private:
    QString file_path(const QString& name) const { return temp_dir_.filePath(name); }

    QString new_dir() {
        const QString dir = file_path(QString("set-%1").arg(++dir_count_));
        if (!QDir().mkpath(dir)) qFatal("cannot create %s", qPrintable(dir));
        return dir;
    }

    QByteArray gzipped(const QByteArray& bytes) {
        const QString path = file_path("gzipped.tmp");
        write_file(path, bytes, Encoding::Gzip);
        return read_file(path);
    }

    // A gzip header followed by seeded random bytes. The first deflate byte
    // declares the reserved block type, so the stream is invalid for any seed.
    static QByteArray random_gzip_body() {
        QByteArray bytes = QByteArray::fromRawData("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
        bytes.append(char(0xFF));
        std::mt19937 random(2024);
        for (int i = 0; i < 200; ++i) bytes.append(char(random() & 0xFF));
        return bytes;
    }

    static void skip_without_fashion_mnist() {
        if (!QFileInfo(kSystemFashionMnistDir).isDir())
            QSKIP("no Fashion-MNIST at /usr/share/datasets/fashion-mnist (install dataset-fashion-mnist)");
    }

    static void verify_fashion_mnist_set(const dp::Dataset& set, int count) {
        QCOMPARE(set.count, count);
        QCOMPARE(set.channels, 1);
        QCOMPARE(set.height, 28);
        QCOMPARE(set.width, 28);
        QCOMPARE(set.images.size(), std::size_t(count) * 28 * 28);
        QCOMPARE(set.labels.size(), std::size_t(count));
        const auto [lowest, highest] = std::minmax_element(set.images.begin(), set.images.end());
        QCOMPARE(*lowest, 0.0f);
        QCOMPARE(*highest, 1.0f);
        QVERIFY(std::all_of(set.labels.begin(), set.labels.end(),
                            [](std::int32_t label) { return label >= 0 && label <= 9; }));
    }

    QTemporaryDir temp_dir_;
    int dir_count_ = 0;
};

QTEST_APPLESS_MAIN(DataTest)
#include "test_data.moc"
