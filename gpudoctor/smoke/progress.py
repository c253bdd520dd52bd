"""Progress of a smoke run on stderr: a rich bar on a terminal, plain lines
otherwise (or nothing under --json), fed by the runner's progress events."""

from __future__ import annotations

from typing import IO, Protocol

TESTS_PER_GPU = {"quick": 11, "full": 12}  # runner/gdsmoke_torch.py device_tests()
NODE_TESTS = 2  # p2p and NCCL all-reduce, with more than one GPU


def planned_tests(n_gpus: int, mode: str) -> int:
    n = max(n_gpus, 1)
    return n * TESTS_PER_GPU.get(mode, 11) + (NODE_TESTS if n > 1 else 0)


def _label(event: dict) -> str:
    gpu = event.get("gpu")
    test = event.get("test")
    name = test.get("name") if isinstance(test, dict) else test
    return f"{'GPU ' + str(gpu) if gpu is not None else 'node'} {name}"


class Progress(Protocol):
    def start(self, total: int) -> None: ...

    def on_event(self, event: dict) -> None: ...

    def close(self) -> None: ...


class NullProgress:
    def start(self, total: int) -> None:
        pass

    def on_event(self, event: dict) -> None:
        pass

    def close(self) -> None:
        pass


class PlainProgress:
    """One line per finished test, for logs."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def start(self, total: int) -> None:
        self.stream.write(f"gpudoctor smoke: running about {total} tests\n")

    def on_event(self, event: dict) -> None:
        if event.get("ev") != "done" or not isinstance(event.get("test"), dict):
            return
        test = event["test"]
        rate = ""
        if test.get("tflops") is not None:
            rate = f" {test['tflops']:.1f} TFLOPS"
        elif test.get("gbps") is not None:
            rate = f" {test['gbps']:.1f} GB/s"
        self.stream.write(f"gpudoctor smoke: {_label(event)}: {test.get('status')}{rate}\n")
        self.stream.flush()

    def close(self) -> None:
        pass


class RichProgress:
    def __init__(self, stream: IO[str]) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=Console(file=stream), transient=True)
        self.task = None

    def start(self, total: int) -> None:
        self.bar.start()
        self.task = self.bar.add_task("starting the framework", total=total)

    def on_event(self, event: dict) -> None:
        if self.task is None:
            return
        kind = event.get("ev")
        if kind == "backend":
            self.bar.update(self.task, description=f"importing {event.get('name')}")
        elif kind == "start":
            self.bar.update(self.task, description=_label(event))
        elif kind == "done":
            task = self.bar.tasks[0]
            if task.total is not None and task.completed + 1 > task.total:
                self.bar.update(self.task, total=task.completed + 1)
            self.bar.advance(self.task)

    def close(self) -> None:
        self.bar.stop()


def make_progress(stream: IO[str], json_output: bool) -> Progress:
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return RichProgress(stream)
    return NullProgress() if json_output else PlainProgress(stream)
