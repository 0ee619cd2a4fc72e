#include "record/batch_loss_trace.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "io/json.h"

namespace dp {

BatchLossPoint batch_loss_point(const BatchProgress& progress, double seconds) {
    const int per_epoch = std::max(progress.batches_per_epoch, 1);
    return {progress.epoch - 1 + double(progress.batch) / per_epoch, seconds, progress.loss,
            double(progress.epoch - 1) * per_epoch + progress.batch};
}

BatchLossPoint BatchLossClock::point(const BatchProgress& progress) {
    const auto now = std::chrono::steady_clock::now();
    if (progress.batch == 1 || !epoch_start_) epoch_start_ = now;
    const double elapsed = std::chrono::duration<double>(now - *epoch_start_).count();
    return batch_loss_point(progress, completed_seconds_ + elapsed);
}

void BatchLossClock::end_epoch(double epoch_seconds) {
    completed_seconds_ += epoch_seconds;
    epoch_start_.reset();
}

BatchLossTrace::BatchLossTrace(int max_points) : max_points_(std::max(max_points, 1)) {}

void BatchLossTrace::Bucket::add(const Bucket& other) {
    const int total = count + other.count;
    const auto mean = [&](double a, double b) { return (a * count + b * other.count) / total; };
    point = {mean(point.epoch, other.point.epoch), mean(point.seconds, other.point.seconds),
             mean(point.loss, other.point.loss), mean(point.step, other.point.step)};
    count = total;
}

void BatchLossTrace::append(const BatchLossPoint& point) {
    filling_.add({point, 1});
    if (filling_.count < bucket_size_) return;
    full_.push_back(filling_);
    filling_ = {};
    if (int(full_.size()) < 2 * max_points_) return;
    // Halve the resolution: each pair of buckets becomes one.
    std::vector<Bucket> merged;
    merged.reserve(full_.size() / 2 + 1);
    for (std::size_t i = 0; i + 1 < full_.size(); i += 2) {
        Bucket pair = full_[i];
        pair.add(full_[i + 1]);
        merged.push_back(pair);
    }
    if (full_.size() % 2 != 0) filling_ = full_.back();
    full_ = std::move(merged);
    bucket_size_ *= 2;
}

std::vector<BatchLossPoint> BatchLossTrace::points() const {
    std::vector<BatchLossPoint> points;
    points.reserve(full_.size() + 1);
    for (const Bucket& bucket : full_) points.push_back(bucket.point);
    // The newest batches show before their bucket fills.
    if (filling_.count > 0) points.push_back(filling_.point);
    return points;
}

std::string batch_losses_json(const std::vector<BatchLossPoint>& points) {
    std::string out = "[";
    for (std::size_t i = 0; i < points.size(); ++i) {
        const BatchLossPoint& p = points[i];
        out += (i ? ", [" : "[") + json_number(p.step) + ", " + json_number(p.epoch) + ", " +
               json_number(p.seconds) + ", " + json_number(p.loss) + "]";
    }
    return out + "]";
}

std::vector<BatchLossPoint> batch_losses_from_json(std::string_view json_array, const std::string& path) {
    const auto fail = [&](const std::string& where, const std::string& problem) {
        throw Error("not a valid run record: \"" + where + "\" " + problem);
    };
    JsonReader reader(json_array, "not a valid run record: \"" + path + "\" is not JSON");
    if (reader.peek_type() != JsonType::array) fail(path, "is not an array");
    std::vector<BatchLossPoint> points;
    reader.parse_array([&](std::size_t index) {
        const std::string at = path + '[' + std::to_string(index) + ']';
        if (reader.peek_type() != JsonType::array) fail(at, "is not an array of 4 numbers");
        double values[4] = {};
        std::size_t count = 0;
        reader.parse_array([&](std::size_t item) {
            if (item >= 4) fail(at, "is not an array of 4 numbers");
            // A NaN loss (JSON null) stays one; the x positions must be numbers.
            if (item == 3 && reader.peek_type() == JsonType::null) {
                reader.parse_null();
                values[item] = std::numeric_limits<double>::quiet_NaN();
            } else {
                if (reader.peek_type() != JsonType::number) fail(at, "is not an array of 4 numbers");
                values[item] = reader.parse_number().value;
            }
            ++count;
        });
        if (count != 4) fail(at, "is not an array of 4 numbers");
        if (values[0] < 0 || values[1] < 0 || values[2] < 0)
            fail(at, "has a negative step, epoch or time");
        points.push_back({values[1], values[2], values[3], values[0]});
    });
    reader.skip_whitespace();
    if (!reader.at_end()) reader.syntax_error("more after the JSON value");
    return points;
}

double steps_per_epoch(const std::vector<BatchLossPoint>& points) {
    if (points.empty() || !(points.back().epoch > 0)) return 0;
    return std::round(points.back().step / points.back().epoch);
}

}  // namespace dp
