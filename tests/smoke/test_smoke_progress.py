"""Progress display: a rich bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import io

from gpudoctor.smoke.progress import NullProgress, PlainProgress, RichProgress, make_progress, planned_tests

EVENTS = [
    {"ev": "backend", "name": "torch"},
    {"ev": "gpu", "index": 0, "name": "NVIDIA H200"},
    {"ev": "start", "gpu": 0, "test": "gemm_bf16"},
    {"ev": "done", "gpu": 0, "test": {"name": "gemm_bf16", "status": "ok", "tflops": 781.25}},
    {"ev": "start", "gpu": 0, "test": "copy_d2d"},
    {"ev": "done", "gpu": 0, "test": {"name": "copy_d2d", "status": "ok", "gbps": 4012.0}},
]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_gets_a_rich_bar_that_counts_finished_tests():
    stream = Tty()
    progress = make_progress(stream, json_output=True)
    assert isinstance(progress, RichProgress)
    progress.start(1)
    for ev in EVENTS:
        progress.on_event(ev)
    task = progress.bar.tasks[0]
    assert task.completed == 2 and task.total == 2  # the total grows past an underestimate
    progress.close()


def test_pipe_gets_plain_lines_and_json_gets_none():
    stream = io.StringIO()
    progress = make_progress(stream, json_output=False)
    assert isinstance(progress, PlainProgress)
    progress.start(11)
    for ev in EVENTS:
        progress.on_event(ev)
    lines = stream.getvalue().splitlines()
    assert lines == ["gpudoctor smoke: running about 11 tests",
                     "gpudoctor smoke: GPU 0 gemm_bf16: ok 781.2 TFLOPS",
                     "gpudoctor smoke: GPU 0 copy_d2d: ok 4012.0 GB/s"]
    assert isinstance(make_progress(io.StringIO(), json_output=True), NullProgress)


def test_planned_tests_counts_node_tests_only_with_several_gpus():
    assert planned_tests(1, "quick") == 11
    assert planned_tests(2, "full") == 2 * 12 + 2
