"""The choice on small hand-made matrices: each test states the facts it uses."""


from gpudoctor.install import plan_install
from gpudoctor.install.request import Request, parse_request
from gpudoctor.install.target import Target, TargetGpu
from gpudoctor.matrices import records as r
from gpudoctor.versions import ComputeCapability

from conftest import SRC, build, make, rel


def machine(*ccs, driver="580.95.05", python=(3, 11), os="linux", arch="x86_64", cpu=False, driver_cuda=None):
    gpus = tuple(TargetGpu(ComputeCapability(*map(int, cc.split(".")))) for cc in ccs)
    return Target(os=os, arch=arch, python=python, driver=driver, driver_cuda=driver_cuda, gpus=gpus, cpu_only=cpu)


def choose(m, target, fw="torch", version=None, packages=()):
    return plan_install(parse_request(fw, packages, version), target, m)


def picked(plan):
    return (plan.choice.candidate.version, plan.choice.candidate.variant) if plan.ok else None


def test_pypi_default_preferred_when_it_qualifies(torch_mini):
    assert picked(choose(torch_mini, machine("8.9"))) == ("2.11.0", "cu130")
    # On driver 575 cu130 cannot load: the newest CUDA that works, cu128, not the older cu126.
    assert picked(choose(torch_mini, machine("8.9", driver="575.57.08"))) == ("2.11.0", "cu128")


def test_pascal_gets_cu126_not_the_default(torch_mini):
    plan = choose(torch_mini, machine("6.1", driver="575.57.08"))
    assert picked(plan) == ("2.11.0", "cu126")
    rejected = {a.variant: a.reason for a in plan.alternatives if a.version == "2.11.0"}
    assert "no kernels for sm_61" in rejected["cu128"] and "needs sm_75+" in rejected["cu128"]
    assert "driver >= 580.65.06" in rejected["cu130"]


def test_volta_on_211_skips_cu128_which_dropped_it(torch_mini):
    plan = choose(torch_mini, machine("7.0", driver="575.57.08"))
    assert picked(plan) == ("2.11.0", "cu126")
    assert any(a.variant == "cu128" and "no kernels for sm_70" in a.reason for a in plan.alternatives)


def test_cudnn_floor_blocks_even_with_kernels():
    # A build with sm_70 kernels but cuDNN 9.17: cuDNN >= 9.11 needs sm_75+.
    m = make([rel("2.11.0")], [build("2.11", "cu128", ("sm_70", "sm_75"), "9.17.1.4")])
    plan = choose(m, machine("7.0"))
    assert not plan.ok
    assert "bundles cuDNN 9.17.1.4, which needs sm_75+" in plan.alternatives[0].reason


def test_same_major_cubin_and_no_cross_major():
    m = make([rel("2.9.0")], [build("2.9", "cu128", ("sm_80", "sm_86"), "9.10.2.21")])
    assert choose(m, machine("8.9")).ok  # sm_86 cubins run on 8.9
    assert not choose(m, machine("9.0")).ok  # ... but never on 9.0


def test_ptx_jit_needs_a_new_enough_driver():
    m = make([rel("2.9.0")], [build("2.9", "cu129", ("sm_90", "compute_90"), "9.10.2.21")])
    ok = choose(m, machine("12.0", driver="580.95.05"))
    assert ok.ok and ok.choice.ptx_only and any("JIT-compiles" in w for w in ok.warnings)
    old = choose(m, machine("12.0", driver="535.104.05"))  # CUDA 12.2 cannot JIT 12.9 PTX
    assert not old.ok and "PTX JIT" in old.alternatives[0].reason
    assert any("575.51.03" in n for n in old.needs)


def test_sass_preferred_over_ptx_within_a_release():
    m = make([rel("2.9.0")], [build("2.9", "cu129", ("sm_90", "compute_90"), "9.10.2.21", default=True),
                              build("2.9", "cu128", ("sm_90", "sm_120"), "9.10.2.21")])
    assert picked(choose(m, machine("12.0"))) == ("2.9.0", "cu128")


def test_minor_version_compat_and_cuda13_floor(torch_mini):
    plan = choose(torch_mini, machine("8.0", driver="535.104.05"))
    assert picked(plan) == ("2.11.0", "cu128")
    assert any("minor-version compatibility" in x for x in plan.reasons)
    assert not any(a.variant == "cu130" and a.works for a in plan.alternatives)


def test_driver_unknown_is_a_warning_not_a_block(torch_mini):
    plan = choose(torch_mini, machine("8.9", driver=None))
    assert plan.ok and any("driver is unknown" in w and "580.65.06" in w for w in plan.warnings)


def test_driver_older_than_every_table_row_is_too_old(torch_mini):
    plan = choose(torch_mini, machine("8.0", driver="390.48"))
    assert not plan.ok and any("driver >=" in n for n in plan.needs)


def test_windows_driver_uses_the_windows_floor():
    m = make([rel("2.11.0")], [build("2.11", "cu130", ("sm_75", "sm_86"), "9.17.1.4", platform="windows-x86_64")])
    assert choose(m, machine("8.6", driver="581.57", os="windows")).ok
    plan = choose(m, machine("8.6", driver="566.36", os="windows"))
    assert not plan.ok and "driver >= 580.88 for cu130 (torch 2.11.0)" in plan.needs


def test_python_out_of_range_says_which_python(torch_mini):
    plan = choose(torch_mini, machine("8.9", python=(3, 15)))
    assert not plan.ok
    assert "Python 3.10–3.14 for torch 2.11.0" in plan.needs


def test_version_request_and_what_works_outside_it(torch_mini):
    assert picked(choose(torch_mini, machine("8.9"), version="2.8")) == ("2.8.0", "cu128")
    plan = choose(torch_mini, machine("6.1"), version=">=2.8.1,<2.11")  # matches nothing
    assert not plan.ok and any("outside the request" in n for n in plan.needs)


def test_gpu_coverage_hint_when_a_newer_release_drops_it():
    m = make([rel("2.8.0"), rel("2.15.0")],
             [build("2.8", "cu126", ("sm_50", "sm_60", "sm_70"), "9.10.2.21"),
              build("2.15", "cu130", ("sm_75", "sm_80"), "9.17.1.4")])
    plan = choose(m, machine("6.1"))
    assert picked(plan) == ("2.8.0", "cu126")
    assert "sm_61 is supported only up to torch 2.8.0" in plan.reasons
    assert plan.reasons[0].startswith("no build of torch 2.15.0 works here")


def test_no_answer_names_every_blocker_and_fallback(torch_mini):
    plan = choose(torch_mini, machine("3.5", driver="470.82.01", python=(3, 9)))
    assert not plan.ok and plan.install is None
    assert any("sm_35" in n and "no torch build" in n for n in plan.needs)
    assert any("--cpu" in n for n in plan.needs)
    d = plan.to_dict()
    assert d["version"] is None and d["commands"]["pip"] is None and d["commands"]["conda"] is None


def test_mixed_gpus_must_all_be_covered(torch_mini):
    assert picked(choose(torch_mini, machine("6.1", "8.9", driver="580.95.05"))) == ("2.11.0", "cu126")


def test_aarch64_uses_its_own_builds(torch_mini):
    plan = choose(torch_mini, machine("9.0", arch="aarch64"))
    assert picked(plan) == ("2.11.0", "cu130")
    old = choose(torch_mini, machine("9.0", arch="aarch64"), version="2.8")
    assert not old.ok and "no CUDA wheels of torch 2.8 for linux-aarch64" in old.alternatives[0].reason
    assert not choose(torch_mini, machine("7.5", arch="aarch64")).ok  # aarch64 cu130 starts at sm_80


def test_cpu_machine_gets_the_cpu_index(torch_mini):
    plan = choose(torch_mini, machine(cpu=True, driver=None))
    assert picked(plan) == ("2.11.0", "cpu")
    assert plan.install.commands.pip.endswith("torch==2.11.0+cpu --index-url https://download.pytorch.org/whl/cpu")


def test_companions_are_paired_from_the_same_index(torch_mini):
    plan = choose(torch_mini, machine("8.9", driver="575.57.08"), packages=("torchvision", "torchaudio"))
    assert plan.install.packages == ("torch==2.11.0+cu128", "torchvision==0.26.0+cu128", "torchaudio==2.11.0+cu128")
    assert plan.install.commands.uv == ("uv pip install torch==2.11.0+cu128 torchvision==0.26.0+cu128 "
                                        "torchaudio==2.11.0+cu128 --torch-backend=cu128")
    proj = plan.install.commands.uv_project
    assert 'dependencies = ["torch==2.11.0", "torchvision==0.26.0", "torchaudio==2.11.0"]' in proj
    assert 'torchvision = [{ index = "pytorch-cu128", marker = "sys_platform == \'linux\'" }]' in proj


def test_unknown_pairing_is_left_unpinned_with_a_warning():
    m = make([rel("2.13.0")], [build("2.13", "cu130", ("sm_75", "sm_80"), "9.17.1.4")])
    plan = choose(m, machine("8.0"), packages=("torchvision",))
    assert plan.install.packages == ("torch==2.13.0+cu130", "torchvision")
    assert any("no pairing" in w for w in plan.warnings)


def test_uv_backend_unknown_to_uv_falls_back_to_the_index():
    m = make([rel("2.20.0")], [build("2.20", "cu139", ("sm_75", "sm_80"), "9.17.1.4", cuda="13.9")])
    plan = choose(m, machine("8.0", driver_cuda="13.9"))
    assert plan.install.commands.uv.endswith("--index-url https://download.pytorch.org/whl/cu139")


def test_pytorch_conda_channel_up_to_25():
    m = make([rel("2.5.1", ("3.9", "3.12"), "0.20.1", "2.5.1")],
             [build("2.5", "cu124", ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"), "9.1.0.70",
                    default=True)])
    plan = choose(m, machine("8.6", driver="550.54.14"), packages=("torchvision", "torchaudio"))
    assert plan.install.commands.conda == ("conda install -c pytorch -c nvidia pytorch==2.5.1 torchvision==0.20.1 "
                                           "torchaudio==2.5.1 pytorch-cuda=12.4")
    assert plan.install.commands.mamba.startswith("mamba install -c pytorch -c nvidia")
    assert 'pytorch-cuda = "12.4.*"' in plan.install.commands.pixi


def test_conda_forge_refused_for_gpus_below_cudnn_floor(torch_mini):
    plan = choose(torch_mini, machine("6.1", driver="580.95.05"))
    assert plan.install.commands.conda is None
    assert "pytorch channel ended with 2.5" in plan.install.commands.conda_note


def tf_row(**kw):
    """A TensorflowRelease; fields newer than the record type are dropped."""
    known = set(r.TensorflowRelease.__dataclass_fields__)
    return r.TensorflowRelease(source=SRC, **{k: v for k, v in kw.items() if k in known})


def test_tensorflow_and_cuda_pins_cudnn_below_911_for_pascal():
    tf = tf_row(version="2.18", python_min="3.9", python_max="3.12", cuda="12.5",
                             cudnn="9.3", and_cuda_extra=True, releases=("2.18.0", "2.18.1"),
                             and_cuda_cudnn="9.3.0.75", arch_list=("sm_60", "sm_70", "sm_80", "sm_89", "compute_90"))
    m = make(tensorflow=[tf])
    plan = choose(m, machine("6.1", driver="550.54.14"), fw="tensorflow")
    assert plan.install.packages == ("tensorflow[and-cuda]==2.18.1", "nvidia-cudnn-cu12<9.11")
    assert plan.install.commands.pip == "python -m pip install 'tensorflow[and-cuda]==2.18.1' 'nvidia-cudnn-cu12<9.11'"
    modern = choose(m, machine("8.9", driver="550.54.14"), fw="tensorflow")
    assert modern.install.packages == ("tensorflow[and-cuda]==2.18.1",)


def test_tensorflow_native_windows_ends_at_210():
    rows = [tf_row(version="2.10", python_min="3.7", python_max="3.10", cuda="11.2", cudnn="8.1",
                   windows_native_gpu=True, releases=("2.10.0", "2.10.1")),
            tf_row(version="2.18", python_min="3.9", python_max="3.12", cuda="12.5", cudnn="9.3",
                   and_cuda_extra=True, releases=("2.18.1",))]
    m = make(tensorflow=rows)
    win = choose(m, machine("8.6", driver="566.36", os="windows", python=(3, 10)), fw="tensorflow")
    assert picked(win) == ("2.10.1", "windows-native")
    assert win.install.commands.setup == ("conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1",)
    assert win.install.commands.pip == "python -m pip install tensorflow==2.10.1"
    none = choose(m, machine("8.6", driver="566.36", os="windows", python=(3, 12)), fw="tensorflow")
    assert not none.ok
    assert "Python 3.7–3.10 for tensorflow 2.10.1" in none.needs
    assert any("WSL2" in n for n in none.needs)


def _jax_row(**kw):
    base = dict(version_from="0.8.0", version_to="0.8.2", extras=("cuda12", "cuda13"), source=SRC,
                cuda12_min="12.1", cuda13_min="13.0", cudnn_min="9.8", min_driver_cuda12="525",
                min_driver_cuda13="580", min_sm_cuda12="5.2", min_sm_cuda13="7.5", python_min="3.11")
    base.update(kw)
    return r.JaxRelease(**base)


def test_jax_picks_cuda13_then_cuda12_by_driver_and_sm():
    m = make(jax=[_jax_row()])
    assert picked(choose(m, machine("9.0"), fw="jax")) == ("0.8.2", "cuda13")
    assert picked(choose(m, machine("9.0", driver="550.54.14"), fw="jax")) == ("0.8.2", "cuda12")
    pascal = choose(m, machine("6.1"), fw="jax")
    assert picked(pascal) == ("0.8.2", "cuda12")
    assert pascal.install.packages == ("jax[cuda12]==0.8.2", "nvidia-cudnn-cu12<9.11")
    maxwell = choose(m, machine("5.0"), fw="jax")
    assert not maxwell.ok and any("needs sm_52+" in a.reason for a in maxwell.alternatives)
    assert not choose(m, machine("9.0", os="windows"), fw="jax").ok


def test_jax_version_range_request():
    m = make(jax=[_jax_row()])
    plan = choose(m, machine("9.0"), fw="jax", version="==0.8.1")
    assert picked(plan) == ("0.8.1", "cuda13") and plan.install.packages == ("jax[cuda13]==0.8.1",)
    ranged = choose(m, machine("9.0"), fw="jax", version=">=0.8.1,<0.8.2")
    assert ranged.install.packages == ("jax[cuda13]>=0.8.1,<0.8.2,>=0.8.0,<=0.8.2",)


def test_cupy_follows_nvrtc_targets_and_driver():
    m = make(cupy=[r.CupyPackage(package="cupy-cuda13x", cuda_major=13, source=SRC, cuda_min="13.0", ctk_extra_from="14.0.0"),
                   r.CupyPackage(package="cupy-cuda12x", cuda_major=12, source=SRC, cuda_min="12.0", ctk_extra_from="14.0.0")])
    assert picked(choose(m, machine("8.9"), fw="cupy"))[1] == "cupy-cuda13x"
    pascal = choose(m, machine("6.1"), fw="cupy")
    assert picked(pascal)[1] == "cupy-cuda12x"
    assert pascal.install.commands.pip == "python -m pip install 'cupy-cuda12x[ctk]'"
    assert pascal.install.commands.conda == "conda install -c conda-forge cupy cuda-version=12"
    assert picked(choose(m, machine("8.9", driver="535.104.05"), fw="cupy"))[1] == "cupy-cuda12x"
    assert not choose(m, machine(cpu=True), fw="cupy").ok


def test_no_data_is_an_honest_no():
    plan = plan_install(Request("torch"), machine("8.0"), make())
    assert not plan.ok and "gpudoctor's data has no torch builds" in plan.needs


def _pypi_and_index():
    return make([rel("2.11.0")], [
        build("2.11", "cu130", ("sm_75", "sm_80", "sm_86"), "9.19.0.56", default=True, index_url="https://pypi.org/simple"),
        build("2.11", "cu130", ("sm_75", "sm_80", "sm_86", "compute_86"), "9.17.1.4",
              index_url="https://download.pytorch.org/whl/cu130")])


def test_pypi_default_row_is_a_plain_pin_and_preferred():
    plan = choose(_pypi_and_index(), machine("8.9"))
    assert plan.install.commands.pip == "python -m pip install torch==2.11.0"
    assert plan.install.commands.uv == "uv pip install torch==2.11.0"
    assert "[[tool.uv.index]]" not in plan.install.commands.uv_project
    assert plan.install.index_url == "https://pypi.org/simple"
    (alt,) = plan.alternatives
    assert alt.index_url.startswith("https://download.pytorch.org/") and "PyPI default" in alt.reason
    # A described machine has no installed build to collide with; this machine may.
    assert not any("--force-reinstall" in w for w in plan.warnings)
    from dataclasses import replace
    here = choose(_pypi_and_index(), replace(machine("8.9"), origin="this machine"))
    assert any("--force-reinstall" in w for w in here.warnings)


def test_pypi_and_index_builds_are_judged_separately():
    # A newer GPU: only the index build has PTX for it.
    plan = choose(_pypi_and_index(), machine("12.0"))
    assert plan.ok and plan.install.index_url == "https://download.pytorch.org/whl/cu130" and plan.choice.ptx_only


def test_replacing_the_same_version_forces_the_reinstall():
    m = _pypi_and_index()
    plan = plan_install(Request("torch", replaces="2.11.0+cu126"), machine("8.9"), m)
    assert plan.install.commands.pip == "python -m pip install --force-reinstall torch==2.11.0"
    assert plan.install.commands.uv == "uv pip install --reinstall-package torch torch==2.11.0"
    other = plan_install(Request("torch", replaces="2.10.0+cu128"), machine("8.9"), m)
    assert "--force-reinstall" not in other.install.commands.pip
