#pragma once

// A run record with every field away from its default: values that decimal
// text rounds, names with quotes, commas and multi-byte UTF-8. What the run
// record's JSON (tests/train) and the history database (tests/records) must
// both give back exactly.
#include <cstdint>
#include <limits>

#include "record/run_record.h"

// Every value within what a run can write (a seed up to 2^63 - 1, no NaN loss).
inline dp::RunRecord every_field_record() {
    dp::RunRecord record;
    record.id = "2026-11-22T01:30:00Z-4242-1";
    record.started_at = "2026-11-22T01:30:00Z";
    record.source = "mpirun";
    record.status = dp::RunStatus::failed;
    record.error = "rank 1: \"loss is NaN\", lower --lr\t(tab)";
    record.processes = 4;
    record.comparison_group = "compare-2026-11-22T01:30:00Z-4242-2";
    record.deterministic = false;
    record.other_cores = 1.25;
    record.busy = true;
    record.usable_cores = 3;
    record.name = "baseline, 'tuned' \xC2\xB7 \xC3\xBC \xF0\x9F\x98\x80";  // ·, ü, an emoji
    record.notes = "lr too high?\nsee \"run 3\", 'tuned' \xC2\xB7 \xF0\x9F\x98\x80\ttab";  // lines, quotes, UTF-8
    record.tags = {"baseline", "lr sweep", "\xC3\xBC 'quoted' \"too\""};
    dp::TrainConfig& c = record.config;
    c.model = "resnet18-narrow";
    c.batch_size = 512;
    c.lr = 0.1f;
    c.epochs = 7;
    c.warmup_epochs = 0.5;
    c.weight_decay = 0.0005f;
    c.seed = std::uint64_t(std::numeric_limits<std::int64_t>::max());  // the largest a record keeps
    c.dataset = "mnist-format";
    c.data_dir = "/data/my mnist, 'copy' \xC2\xB7 \\ \"quoted\"";
    c.input_size = 7;
    c.samples = 33;
    c.limit_train = 1000;
    c.limit_test = 200;
    c.shuffle = false;
    c.load_path = "/tmp/start.safetensors";
    c.save_path = "/tmp/end.safetensors";
    c.record_path = "/tmp/run.json";
    c.preview_samples = 8;
    c.devices = {"cpu:0", "cpu:1", "cpu:2", "cpu:3"};
    c.allreduce = dp::AllReduceStrategy::naive;
    c.bucket_mb = 0.1;
    c.sync_bn = true;
    c.collective_timeout_s = 0.1 + 0.2;
    c.slow_devices = {"cpu:1=1.5", "cpu:3=2.25"};
    record.epochs = {{1, 2.302585092994046, 0.1 + 0.2, 1.0 / 3.0, 12.345678901234567, 3.1e-6},
                     {2, 0.25, 5e-324, 0.9999999999999999, 3600.5}};  // drift not measured: NaN
    record.epochs[0].test_loss = 2.3025850929940455 + 1e-9;  // the second's: NaN, as in older records
    record.epochs[0].device_cpu = {0.1 + 0.2, 1.0, 0, 1.0 / 3.0};  // the second's: none, as in older records
    record.steps = 47;
    record.step_epochs = 1;  // the second epoch's steps: the first was taken out
    record.step_totals = {{3000, 0.1 + 0.2, 1.0 / 3.0, 2.5, 0.125, 1e-7},
                          {3000, 0.5, 0.75, 2.25, 1.0 / 7.0, 0},
                          {2992, 0, 0, 0, 0, 0},
                          {2992, 1e11, 5e-324, 1, 2, 3}};  // 1e11 s: within the most a record may hold
    record.step_totals[1].straggler_wait = 0.1 + 0.7;  // cpu:1, the straggler
    // The decimated loss per batch: a bucket's means (fractional steps), a
    // diverged batch's NaN loss, and a loss that decimal text rounds.
    record.batch_losses = {{0.02, 0.125, 2.302585092994046, 1},
                           {0.5 + 1.0 / 3.0, 1.0 / 7.0, 0.1 + 0.2, 41.5},
                           {1.5, 3600.5, std::numeric_limits<double>::quiet_NaN(), 75}};
    return record;
}

