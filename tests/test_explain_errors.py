"""`gpudoctor explain "ERROR TEXT"`: the catalogue, matching, tailoring, exit codes."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpudoctor.cli import cli
from gpudoctor.diagnose.catalog import CatalogError, load_catalog, match_text, parse_catalog

FIXTURES = Path(__file__).parent / "rules"

# One real message per catalogue entry (as the tools print them) -> the entry it must match.
MESSAGES = {
    "sm-not-compatible": "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
                         "PyTorch installation.",
    "gpu-too-old-for-pytorch": "Found GPU0 GeForce GT 720 which is of cuda capability 3.5.",
    "tf-ignoring-gpu": "Ignoring visible gpu device (device: 0, name: Quadro K4200, pci bus id: 0000:03:00.0, compute "
                       "capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
    "vllm-min-capability": "RuntimeError: GPUs with compute capability below 7.0 are not supported.",
    "no-kernel-image": "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "tf-no-kernel-binaries": "TensorFlow was not built with CUDA kernel binaries compatible with compute capability "
                             "12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
    "cuda-system-not-ready": "failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY: system not yet initialized",
    "cuda-system-driver-mismatch": "failed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
    "nvcc-unsupported-arch": "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
    "driver-too-old-torch": "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
    "driver-insufficient": "CUDA driver version is insufficient for CUDA runtime version",
    "ptx-unsupported": "CUDA error: the provided PTX was compiled with an unsupported toolchain.",
    "no-driver-torch": "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
    "nvidia-smi-no-driver": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    "nvml-mismatch": "Failed to initialize NVML: Driver/library version mismatch",
    "libcuda-missing": "OSError: libcuda.so: cannot open shared object file: No such file or directory",
    "cuda-unknown-error": "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly "
                          "set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.",
    "nvml-unknown-error-container": "Failed to initialize NVML: Unknown Error",
    "container-no-gpu-runtime": 'docker: Error response from daemon: could not select device driver "" with '
                                'capabilities: [[gpu]].',
    "no-cuda-device": "RuntimeError: No CUDA GPUs are available",
    "invalid-device-ordinal": "RuntimeError: CUDA error: invalid device ordinal",
    "devices-busy": "CUDA error: all CUDA-capable devices are busy or unavailable",
    "gpu-fallen-off-bus": "NVRM: Xid (PCI:0000:41:00): 79, pid=0, GPU has fallen off the bus.",
    "ecc-uncorrectable": "RuntimeError: CUDA error: uncorrectable ECC error encountered",
    "cudnn-version-mismatch-tf": "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.",
    "cudnn-version-mismatch-jax": "Found cuDNN version 8600, but JAX was built against version 8906, which is newer.",
    "cudnn-not-found": "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
                       "object file",
    "cudnn-not-initialized": "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
    "cuda-libs-missing": "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open",
    "nvjitlink-symbol": "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
    "glibcxx-version": "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found",
    "undefined-symbol": "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
    "torch-extension-cuda-mismatch": "The detected CUDA version (12.1) mismatches the version that was used to "
                                     "compile PyTorch (11.8).",
    "deepspeed-cuda-mismatch": "Installed CUDA version 12.2 does not match the version torch was compiled with 11.7, "
                               "unable to compile cuda/cpp extensions",
    "cuda-home-missing": "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
    "torch-not-compiled-with-cuda": "AssertionError: Torch not compiled with CUDA enabled",
    "jax-cpu-fallback": "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed.",
    "cuda-not-available": "torch.cuda.is_available() returns False",
    "no-matching-distribution": "ERROR: No matching distribution found for torch==1.13.1",
    "bf16-unsupported": "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
                        "has compute capability 7.5.",
    "fp8-unsupported": "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.",
    "cuda-oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "illegal-memory-access": "RuntimeError: CUDA error: an illegal memory access was encountered",
    "device-side-assert": "RuntimeError: CUDA error: device-side assert triggered",
    "tensors-different-devices": "RuntimeError: Expected all tensors to be on the same device, but found at least "
                                 "two devices, cuda:0 and cpu!",
    "launch-timeout": "CUDA error: the launch timed out and was terminated",
    "cublas-status": "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(...)`",
    "shm-too-small": "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Bus error. It is possible that "
                     "dataloader's workers are out of shared memory.",
    "nccl-timeout": "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)",
    "nccl-system-error": "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled "
                         "system error, NCCL version 2.19.3",
    "gpu-utilization-low": "GPU utilization is very low during training",
}


def run(args, **kw):
    return CliRunner().invoke(cli, args, catch_exceptions=False, **kw)


def test_catalogue_has_at_least_40_sourced_entries():
    entries = load_catalog()
    assert len(entries) >= 40
    assert len({e.id for e in entries}) == len(entries)
    for e in entries:
        assert e.source.startswith("https://") and e.causes and e.confirm and e.fix


def test_every_entry_has_a_test_message():
    assert set(MESSAGES) == {e.id for e in load_catalog()}


@pytest.mark.parametrize("entry, message", sorted(MESSAGES.items()))
def test_message_matches_its_entry_first(entry, message):
    matches = match_text(message)
    assert matches and matches[0].entry.id == entry


def test_deepspeed_accepted_minor_mismatch_is_not_an_error():
    ok = ("Installed CUDA version 11.1 does not match the version torch was compiled with 11.7 but since the "
          "APIs are compatible, accepting this combination")
    assert not match_text(ok)


def test_healthy_windows_collect_env_cudnn_line_is_not_an_error():
    assert not match_text(r"cuDNN version: C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.7\bin\cudnn64_8.dll")


@pytest.mark.parametrize("row, message", [
    ('id = "x"\ntitle = "t"\npatterns = ["("]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\nsource = "https://a"\n'
     'category = "info"', "bad pattern"),
    ('id = "x"\ntitle = "t"\npatterns = ["a"]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\nsource = "https://a"\n'
     'category = "nonsense"', "unknown category"),
    ('id = "x"\ntitle = "t"\npatterns = ["a"]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\nsource = "https://a"',
     "needs a code or a category"),
    ('id = "x"\ntitle = "t"\npatterns = ["a"]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\nsource = "http://a"\n'
     'category = "info"', "https"),
    ('id = "x"\ntitle = "t"\npatterns = ["a"]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\nsource = "https://a"\n'
     'category = "info"\nexample = "y"', "unknown key 'example'"),
])
def test_catalogue_rejects_bad_rows(row, message):
    with pytest.raises(CatalogError, match=message):
        parse_catalog(f"schema_version = 1\n[[error]]\n{row}\n")


def test_catalogue_rejects_duplicate_ids():
    row = ('[[error]]\nid = "x"\ntitle = "t"\npatterns = ["a"]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\n'
           'source = "https://a"\ncategory = "info"\n')
    with pytest.raises(CatalogError, match="duplicate id"):
        parse_catalog("schema_version = 1\n" + row + row)


def test_explain_error_text_prints_cause_confirm_fix_and_source():
    res = run(["explain", "--no-probe", "RuntimeError: CUDA error: no kernel image is available for execution on "
                                        "the device"])
    assert res.exit_code == 0
    for part in ("Usually means", "How to confirm", "Fix", "GD301", "Source: https://"):
        assert part in res.stdout


def test_explain_oom_gives_the_memory_ladder_in_order():
    out = run(["explain", "--no-probe", "CUDA", "out", "of", "memory"]).stdout.split("Fix", 1)[1]
    ladder = ["Mixed precision", "Gradient checkpointing", "Gradient accumulation", "smaller batch",
              "8-bit optimizer", "empty_cache", "leak"]
    positions = [out.find(step) for step in ladder]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)


def test_explain_unknown_text_says_no_match_suggests_diagnose_and_exits_1():
    res = CliRunner().invoke(cli, ["explain", "--no-probe", "my cat sat on the keyboard"])
    assert res.exit_code == 1
    assert "no known error" in res.stderr and "gpudoctor diagnose" in res.stderr


def test_explain_reads_stdin():
    res = run(["explain", "--no-probe", "-"], input="blah\nRuntimeError: CUDA error: device-side assert triggered\n")
    assert res.exit_code == 0 and "CUDA_LAUNCH_BLOCKING=1" in res.stdout


def test_explain_code_still_works():
    res = run(["explain", "gd201"])
    assert res.exit_code == 0 and "How to fix" in res.stdout
    assert CliRunner().invoke(cli, ["explain", "GD999"]).exit_code == 2


def snapshot_file(tmp_path, code, kind="bad"):
    data = json.loads((FIXTURES / code / f"{kind}.json").read_text())
    data.pop("_note", None)
    path = tmp_path / f"{code}.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_explain_is_tailored_to_a_snapshot(tmp_path):
    # driver 535 (CUDA 12.2) with torch cu130: the explanation names GD201 on this machine.
    res = run(["explain", "--from", snapshot_file(tmp_path, "GD201"),
               "CUDA driver version is insufficient for CUDA runtime version"])
    assert res.exit_code == 0
    assert "driver 535.104.05" in res.stdout and "torch 2.14.1+cu130" in res.stdout
    assert "GD201" in res.stdout.split("On the snapshot")[1]


def test_explain_tailoring_says_when_nothing_on_the_machine_explains_it(tmp_path):
    res = run(["explain", "--from", snapshot_file(tmp_path, "GD201", "good"),
               "CUDA driver version is insufficient for CUDA runtime version"])
    assert "finds nothing on the snapshot that explains this error" in res.stdout


def test_explain_json(tmp_path):
    res = run(["explain", "--json", "--from", snapshot_file(tmp_path, "GD201"),
               "The NVIDIA driver on your system is too old (found version 12020)"])
    data = json.loads(res.stdout)
    (match,) = data["matches"]
    assert match["id"] == "driver-too-old-torch" and match["code"] == "GD802"
    assert match["category"] == "driver-too-old-for-runtime" and match["source"].startswith("https://")
    assert [f["code"] for f in data["machine"]["findings"]] == ["GD201"]


def test_no_probe_does_not_probe(monkeypatch):
    import gpudoctor.commands.check as check

    def boom(*a, **k):
        raise AssertionError("probed")

    monkeypatch.setattr(check, "probe", boom)
    assert run(["explain", "--no-probe", "Torch not compiled with CUDA enabled"]).exit_code == 0


def test_explain_probes_by_default_and_survives_a_build_without_probes(monkeypatch):
    import gpudoctor.commands.check as check

    called = []

    def no_probes(*a, **k):
        called.append(True)
        raise ImportError("no probes in this build")

    monkeypatch.setattr(check, "probe", no_probes)
    res = run(["explain", "Torch not compiled with CUDA enabled"])
    assert called and res.exit_code == 0 and "On this machine" not in res.stdout
