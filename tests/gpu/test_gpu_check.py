#!/usr/bin/env python3
"""scripts/gpu-check's CPU-side logic, with no GPU and no bundle: its commands and settings are
checked before any GPU time is spent (each mistake one line naming it, exit 2), and the speed
table is formatted from canned run files exactly. Runs a copy of the script in a scratch
project root, so the checkout's own .gpu/ (if any) plays no part."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")


def record(seconds, accuracies):
    """A dp-train run record with these epochs (only the fields the table reads)."""
    return json.dumps({"format": "dp-workbench run record", "status": "finished",
                       "epochs": [{"epoch": i + 1, "seconds": s, "test_acc": a}
                                  for i, (s, a) in enumerate(zip(seconds, accuracies))]})


def torch_lines(seconds, accuracies):
    """torch_gpu_ref.py's output: a header line of noise, then one JSON line per epoch."""
    lines = ["=== [12 s] torch-resnet18-fp32: python3 torch_gpu_ref.py"]
    for i, (s, a) in enumerate(zip(seconds, accuracies)):
        lines.append(json.dumps({"peer": "pytorch 2.11", "epoch": i + 1, "train_sec": s,
                                 "sec": s + 0.5, "test_acc": a}))
    return "\n".join(lines + ["exit 0"]) + "\n"


class GpuCheck(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.root, "scripts"))
        os.makedirs(os.path.join(self.root, "bench", "gpu"))
        shutil.copy(os.path.join(SOURCE, "scripts", "gpu-check"), os.path.join(self.root, "scripts"))
        shutil.copy(os.path.join(SOURCE, "bench", "gpu", "speed_table.py"),
                    os.path.join(self.root, "bench", "gpu"))
        self.out = os.path.join(self.root, "out")
        os.makedirs(self.out)

    def tearDown(self):
        shutil.rmtree(self.root)

    def gpu_check(self, *args, **env):
        full_env = {k: v for k, v in os.environ.items()
                    if k not in ("STAGES", "LIMIT", "BUDGET", "AB", "AB_EPOCHS")}
        full_env.update(env)
        return subprocess.run(["bash", os.path.join(self.root, "scripts", "gpu-check"), *args],
                              capture_output=True, text=True, env=full_env, cwd=self.root,
                              timeout=60)

    def assertOneLineError(self, result, words):
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stdout, "")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith("gpu-check: "), lines[0])
        self.assertIn(words, lines[0])

    def write(self, name, text):
        with open(os.path.join(self.out, name), "w") as f:
            f.write(text)

    # ---- commands and settings

    def test_no_command_and_unknown_command(self):
        self.assertOneLineError(self.gpu_check(), "no command: usage: scripts/gpu-check bundle | run | table DIR")
        self.assertOneLineError(self.gpu_check("speed"), "unknown command 'speed'")
        self.assertOneLineError(self.gpu_check("run", "speed"), "run takes no arguments: pick stages with STAGES=")
        self.assertOneLineError(self.gpu_check("table"), "table needs the OUT folder of a run")

    def test_help_names_every_stage(self):
        result = self.gpu_check("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        for stage in ("selftest", "agree", "speed", "profile"):
            self.assertIn(f"  {stage} ", result.stdout)
        self.assertNotIn("#", result.stdout)

    def test_unknown_or_empty_stage_stops_before_anything_runs(self):
        self.assertOneLineError(self.gpu_check("run", STAGES="selftest warp"),
                                "unknown stage 'warp' in STAGES: use some of: selftest agree speed profile")
        self.assertOneLineError(self.gpu_check("run", STAGES="  "), "STAGES is empty")

    def test_bad_ab_entry_and_limits(self):
        self.assertOneLineError(self.gpu_check("run", AB="resnet18:fp64:DP_CUDA_GRAPHS=1"),
                                "AB entry 'resnet18:fp64:DP_CUDA_GRAPHS=1' is not MODEL:PRECISION:VAR=VALUE")
        self.assertOneLineError(self.gpu_check("run", AB="lenet:fp32:graphs"), "AB entry 'lenet:fp32:graphs'")
        self.assertOneLineError(self.gpu_check("run", LIMIT="2m"), "LIMIT must be a whole number")
        self.assertOneLineError(self.gpu_check("run", BUDGET="0"), "BUDGET must be a whole number")
        self.assertOneLineError(self.gpu_check("run", AB_EPOCHS="-1"), "AB_EPOCHS must be a whole number")

    def test_run_without_a_bundle_says_how_to_make_one(self):
        self.assertOneLineError(self.gpu_check("run", STAGES="speed", AB=""),
                                "no .gpu/bundle.tar.xz: run 'scripts/gpu-check bundle' on the build machine first")

    # ---- the speed table

    def test_table_from_canned_runs(self):
        self.write("ours-resnet18-fp32.json", record([20.0, 10.2, 10.0], [0.80, 0.86, 0.89]))
        self.write("torch-resnet18-fp32.jsonl", torch_lines([9.0, 5.4, 5.38], [0.82, 0.87, 0.90]))
        self.write("ours-resnet18-bf16.json", record([9.0, 1.6, 1.4], [0.80, 0.85, 0.86]))
        self.write("torch-resnet18-bf16.jsonl", torch_lines([5.0, 2.6, 2.58], [0.81, 0.86, 0.89]))
        self.write("torch-resnet18-bf16-cl.jsonl", torch_lines([4.0, 1.72, 1.70], [0.81, 0.86, 0.885]))
        self.write("ab-resnet18-fp32-DP_CUDA_BATCH_NORM=cudnn.json", record([19.0, 8.0], [0.8, 0.88]))
        self.write("ours-lenet-fp32.json", record([1.0, 0.3, 0.32], [0.6, 0.7, 0.75]))
        self.write("ours-resnet18-tf32.json", record([], []))  # failed before its first epoch ended
        result = self.gpu_check("table", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.splitlines(), [
            "| model | precision | ours s/epoch (median, range) | PyTorch s/epoch | ours/PyTorch | test acc ours | test acc PyTorch |",
            "|---|---|---|---|---|---|---|",
            "| resnet18 | fp32 | 10.10 (10.00-10.20) | 5.39 (5.38-5.40) | 1.87x | 0.890 | 0.900 |",
            "| resnet18 | fp32 DP_CUDA_BATCH_NORM=cudnn | 8.00 | 5.39 (5.38-5.40) | 1.48x | 0.880 | 0.900 |",
            "| resnet18 | tf32 | - | - | - | no epoch | - |",
            "| resnet18 | bf16 | 1.50 (1.40-1.60) | 2.59 (2.58-2.60) | 0.58x | 0.860 ! | 0.890 |",
            "| resnet18 | bf16 vs channels_last | 1.50 (1.40-1.60) | 1.71 (1.70-1.72) | 0.88x | 0.860 ! | 0.885 |",
            "| lenet | fp32 | 0.31 (0.30-0.32) | - | - | 0.750 | - |",
            "",
            "s/epoch: training time of the steady epochs (all after the first); ! marks test accuracies more than 0.02 apart.",
        ])

    def test_table_says_when_pytorch_is_missing(self):
        self.write("ours-lenet-fp32.json", record([1.0, 0.3], [0.6, 0.7]))
        result = self.gpu_check("table", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("| lenet | fp32 | 0.30 | - | - | 0.700 | - |", result.stdout)
        self.assertIn("PyTorch: no torch-*.jsonl here", result.stdout)

    def test_table_of_an_empty_or_missing_folder(self):
        result = self.gpu_check("table", self.out)
        self.assertEqual(result.returncode, 1)
        self.assertIn("no ours-*.json, ab-*.json or torch-*.jsonl in", result.stderr)
        result = self.gpu_check("table", os.path.join(self.root, "nowhere"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("is not a folder", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
