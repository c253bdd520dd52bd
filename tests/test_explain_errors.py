"""`gpudoctor explain "ERROR TEXT"`: the catalogue, matching, tailoring, exit codes."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from catalog_messages import MESSAGES
from cli_helpers import invoke, rule_fixture

from gpudoctor.diagnose.catalog import CatalogError, load_catalog, match_text, parse_catalog, required_literal
from gpudoctor.snapshot import Snapshot

FIXTURES = Path(__file__).parent / "rules"


def test_catalogue_has_at_least_120_sourced_entries():
    entries = load_catalog()
    assert len(entries) >= 120
    assert len({e.id for e in entries}) == len(entries)
    for e in entries:
        assert e.source.startswith("https://") and e.causes and e.confirm and e.fix


def test_every_printed_message_cites_the_source_that_prints_it():
    # Only free-text complaints have no framework source that prints them.
    missing = {e.id for e in load_catalog() if not e.printed_by}
    assert missing == {"gpu-utilization-low", "wsl-linux-driver-installed", "gpu-not-detected-statement",
                       "gpu-fails-behind-riser", "ptx-jit-hang", "docker-desktop-linux-no-gpu",
                       "cudnn-dll-crash-windows", "gpu-support-dropped-statement",
                       "gpu-lost-after-install-statement", "gpu-support-missing-statement",
                       "driver-not-loading-statement", "python-support-missing-statement",
                       "cpu-build-installed-statement", "container-toolkit-missing-statement",
                       "cpu-and-gpu-builds-installed-statement", "gpu-overheating-statement",
                       "one-gpu-of-several-fails-statement", "gpu-overclocked-statement"}
    assert all(u.startswith("https://") for e in load_catalog() for u in e.printed_by)


def test_every_pattern_has_a_literal_prefilter():
    # A pattern without a required literal runs on every line and slows diagnose on big pastes.
    assert [(e.id, p) for e in load_catalog() for p, lit in zip(e.patterns, e.literals) if lit is None] == []


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


@pytest.mark.parametrize("line", [
    # Kokkos' own warning for a build older than the GPU (same check, not an error).
    "Kokkos::Cuda::initialize WARNING: running kernels compiled for compute capability 6.1 on device with "
    "compute capability 8.6 , this will likely reduce potential performance.",
    # FFmpeg's floor with no number names no driver (it could not ask one).
    "[h264_nvenc @ 0x55d0c] The minimum required Nvidia driver for nvenc is (unknown) or newer",
    # NVIDIA's own advice and a question are not a driver installed inside WSL2.
    "Do not install any NVIDIA GPU Linux driver within WSL 2",
    "Should I install the nvidia driver inside wsl?",
    "Have you installed the nvidia driver in wsl?",
    # A machine that restarts because someone restarts it is no crash.
    "After the driver install the system reboots and nvidia-smi works fine",
    "If the program crashed, restart the machine",
    "Once the machine restarts, run it again",
    "安装完成后系统会自动重启",  # an installer's planned reboot (Chinese)
    "the node restarts the pod",
    "I ordered new risers for the rig",  # a riser named, nothing failing
    "regularisers failed to converge",  # no riser at all
    "the cuda symbol not found in my notes",  # no CUDA function named
    # a package that is no GPU package (a typo, an internal name) says nothing of the GPU environment
    "ERROR: No matching distribution found for torchx-nightly-internal2",
    "ERROR: No matching distribution found for numbalib",
    "Docker Desktop with the WSL2 backend and an Ubuntu distro",  # Windows: Docker Desktop passes the GPU
    "torch 2.1.0 was compiled with CUDA 11.8 and cuDNN 8.7",  # a build's CUDA, not its absence
    # a request for a new GPU's capability is about the build's CUDA, not a skipped arch
    "Please add support for sm_120 (RTX 5090)",
    "Add support for compute capability 12.0",
])
def test_lines_that_do_not_say_which_fault_are_not_matched(line):
    assert not match_text(line)


@pytest.mark.parametrize("line, entry", [
    # wordings of the same message across releases, and a reporter's words for a fault
    ("Loaded runtime CuDNN library: 7.0.5 but the source was compiled with: 7.1.4.", "cudnn-version-mismatch-tf"),
    ("GPU is not usable due to Uncorrectable ECC Error but k8s-device-plugin seems to think its healthy",
     "ecc-uncorrectable"),
    ("But after the last step my PC does a cold reboot.", "machine-crashes-under-gpu-load"),
    ("It just turns off hard without shutdown and reboots after a few seconds.", "machine-crashes-under-gpu-load"),
    ("RuntimeError: No such operator torchvision::nms", "torchvision-cuda-mismatch"),
    ("I am getting unknow runtime specified nvidia.", "docker-unknown-runtime"),
    ("[h264_nvenc @ 0x55] Cannot load libcuda.so.1", "libcuda-missing"),  # FFmpeg's loader
    ("Cuda driver error 804 in call at file 'lib/gpu/geryon/nvd_device.h' in line 333.", "compat-not-supported-on-device"),
])
def test_wordings_people_and_old_releases_use_match_their_entry(line, entry):
    assert [m.entry.id for m in match_text(line)] == [entry]


@pytest.mark.parametrize("line", ["there were no uncorrectable ECC errors", "| GPU  Name  Persistence-M| Volatile Uncorr. ECC |"])
def test_no_ecc_fault_where_a_line_only_names_ecc(line):
    assert not match_text(line)


@pytest.mark.parametrize("line, entry", [
    ("RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices.", "no-cuda-device"),
    ("INFO - Unable to initialize backend 'rocm': FAILED_PRECONDITION: No visible GPU devices.", "jax-other-backend-info"),
])
def test_xlas_no_visible_gpu_is_no_device_only_for_the_cuda_backend(line, entry):
    assert [m.entry.id for m in match_text(line)] == [entry]


def test_an_assert_line_counts_only_as_a_traceback_shows_it():
    # A traceback quotes the failing line and then its exception; a pasted script goes on with code.
    script = 'assert torch.cuda.is_available(), "CPU training is not allowed."\nmodel = Net().cuda()\n'
    assert [m.entry.id for m in match_text(script)] == []
    failed = '  File "train.py", line 12, in main\n    assert torch.cuda.is_available()\n\nAssertionError\n'
    assert [m.entry.id for m in match_text(failed)] == ["assert-torch-cuda-available-failed"]


def test_wsls_ldconfig_warning_is_information_only():
    # Printed on every healthy WSL2 machine by ldconfig (apt runs it): explained, never a finding.
    from gpudoctor.diagnose import read_paste
    from gpudoctor.diagnose.findings import diagnose_report
    from gpudoctor.matrices import load_matrices

    line = "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link"
    assert [m.entry.id for m in match_text(line)] == ["wsl-libcuda-not-symlink"]
    m = load_matrices(overlay=None)
    assert not [f for f in diagnose_report(read_paste(line, matrices=m), m).findings if f.severity.value != "info"]


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
    ('id = "x"\ntitle = "t"\npatterns = ["a"]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\nsource = "https://a"\n'
     'category = "info"\nin_wsl = "windows"', "unknown in_wsl category"),
    ('id = "x"\ntitle = "t"\npatterns = ["a"]\ncauses = ["c"]\nconfirm = ["c"]\nfix = "f"\nsource = "https://a"\n'
     'category = "info"\nfollowed_by = "("', "bad followed_by"),
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
    res = invoke("explain", "--no-probe", "RuntimeError: CUDA error: no kernel image is available for execution on "
                                          "the device")
    assert res.exit_code == 0
    for part in ("Usually means", "How to confirm", "Fix", "GD301", "Source: https://"):
        assert part in res.stdout


def test_explain_oom_gives_the_memory_ladder_in_order():
    out = invoke("explain", "--no-probe", "CUDA", "out", "of", "memory").stdout.split("Fix", 1)[1]
    ladder = ["Mixed precision", "Gradient checkpointing", "Gradient accumulation", "smaller batch",
              "8-bit optimizer", "empty_cache", "leak"]
    positions = [out.find(step) for step in ladder]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)


def test_explain_unknown_text_says_no_match_suggests_diagnose_and_exits_1():
    res = invoke("explain", "--no-probe", "my cat sat on the keyboard")
    assert res.exit_code == 1
    assert "no known error" in res.stderr and "gpudoctor diagnose" in res.stderr


def test_explain_reads_stdin():
    res = invoke("explain", "--no-probe", "-", input="blah\nRuntimeError: CUDA error: device-side assert triggered\n")
    assert res.exit_code == 0 and "CUDA_LAUNCH_BLOCKING=1" in res.stdout


def test_explain_reads_a_cuda_error_given_only_by_its_number():
    res = invoke("explain", "--no-probe", "Error: CUDA error 209 at kernel.cu:52")
    assert res.exit_code == 0 and "GD801" in res.stdout and "cudaErrorNoKernelImageForDevice" in res.stdout


def test_explain_code_still_works():
    res = invoke("explain", "gd201")
    assert res.exit_code == 0 and "How to fix" in res.stdout
    assert invoke("explain", "GD999").exit_code == 2


def test_explain_is_tailored_to_a_snapshot(tmp_path):
    # driver 535 (CUDA 12.2) with torch cu130: the explanation names GD201 on this machine.
    res = invoke("explain", "--from", rule_fixture(tmp_path, "GD201"),
                 "CUDA driver version is insufficient for CUDA runtime version")
    assert res.exit_code == 0
    assert "driver 535.104.05" in res.stdout and "torch 2.14.1+cu130" in res.stdout
    assert "GD201" in res.stdout.split("On the snapshot")[1]


def test_explain_tailoring_says_when_nothing_on_the_machine_explains_it(tmp_path):
    res = invoke("explain", "--from", rule_fixture(tmp_path, "GD201", "good"),
                 "CUDA driver version is insufficient for CUDA runtime version")
    assert "finds nothing on the snapshot that explains this error" in res.stdout


def test_explain_json(tmp_path):
    res = invoke("explain", "--json", "--from", rule_fixture(tmp_path, "GD201"),
                 "The NVIDIA driver on your system is too old (found version 12020)")
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
    assert invoke("explain", "--no-probe", "Torch not compiled with CUDA enabled").exit_code == 0


def test_explain_probes_this_machine_by_default(monkeypatch):
    import gpudoctor.commands.check as check

    called = []

    def probe(*a, **k):  # this machine, as the probes would see it (the GD201 fixture's)
        called.append(True)
        data = json.loads((FIXTURES / "GD201" / "bad.json").read_text())
        data.pop("_note", None)
        return replace(Snapshot.from_dict(data), origin="live")

    monkeypatch.setattr(check, "probe", probe)
    res = invoke("explain", "CUDA driver version is insufficient for CUDA runtime version")
    assert called and res.exit_code == 0 and "On this machine" in res.stdout and "GD201" in res.stdout


def test_a_jaxlib_that_registered_cuda_is_not_called_cpu_only():
    working = 'Could not find registered platform with name: "rocm". Available platform names are: CUDA Host Interpreter'
    assert not any(m.entry.id == "jax-no-gpu-fallback" for m in match_text(working))


@pytest.mark.parametrize("sentence, entry", [
    ("I put `cudnn64_7.dll` into the `cudnn_data` folder, yet it still says it's not found.", "cudnn-not-found"),
    ('I added "cudnn_cnn_infer64_8.dll" (cuda 12.1) to PATH but it still doesn\'t work', "cudnn-not-found"),
    ("For versions 2.1.2 and 2.1.1 I get `undefined symbol` errors on import.", "undefined-symbol"),
    ("但GPU版本报错说找不到cudnn64_8.dll", "cudnn-not-found"),
    ("cudnn_ops_infer64_8.dll が見つかりません", "cudnn-not-found"),
    # the complaint in another sentence, or the library found: no finding
    ("I copied cudnn64_8.dll next to the exe. Now the model is not found.", None),
    ("where cudnn_ops_infer64_8.dll found C:\\CUDA\\bin\\cudnn_ops_infer64_8.dll", None),
    ("After the reinstall I get no undefined symbol errors any more.", None),
])
def test_a_reporters_sentence_about_a_library_is_matched_only_as_one_complaint(sentence, entry):
    assert [m.entry.id for m in match_text(sentence)] == ([entry] if entry else [])


@pytest.mark.parametrize("pattern, literal", [
    (r"Unknown compute capability \(?\d+", "unknown compute capability "),  # an optional escaped "(" is not required
    (r"requires \(\d+, \d+\) here", "requires ("),
    (r"CUDA error: out of memory", "cuda error: out of memory"),
    (r"a|b", None),
])
def test_the_literal_filter_holds_only_text_every_match_contains(pattern, literal):
    assert required_literal(pattern) == literal
