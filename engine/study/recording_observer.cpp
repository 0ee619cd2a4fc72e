#include "study/recording_observer.h"

namespace dp {

void RecordingObserver::on_batch(const BatchProgress& progress) {
    record_.add_batch_loss(batch_clock_.point(progress));
    observer_.on_batch(progress);
}

void RecordingObserver::on_epoch(const EpochMetrics& metrics) {
    batch_clock_.end_epoch(metrics.seconds);
    record_.add_epoch(metrics);  // a sink that cannot keep it fails the run (recorded_run.h)
    observer_.on_epoch(metrics);
}

void RecordingObserver::on_finished(const RunSummary& summary) {
    summary_ = summary;
    // Kept in the record, which the run's end writes, for the speedup-gap breakdown.
    record_.set_step_totals(summary);
    observer_.on_finished(summary);
}

void RecordingObserver::on_failed(const std::string& message) {
    failure_ = render_error_ ? render_error_(message) : message;
    observer_.on_failed(message);
}

}  // namespace dp
