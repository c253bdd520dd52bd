"""Formula-mode training speed against published single-GPU throughput.

    python bench/plan_speed.py

Rows marked "fit" were used to fit the CNN memory-traffic bound (gpudoctor/plan/
compute.py); the others are checks it was not fitted on.
"""

from __future__ import annotations

import statistics

from gpudoctor.matrices import load_matrices
from gpudoctor.plan import compute, models
from gpudoctor.plan.job import Job

DLE = "NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5 README (pytorch-21.03)"
TIMM = "huggingface/pytorch-image-models results/benchmark-train-amp-nhwc-pt112-cu113-rtx3090.csv"
ROWS = [  # (model, gpu, job, measured samples/s, role, source)
    ("resnet50", "V100 SXM2 16GB", Job(batch=256, precision="amp-fp16", optimizer="sgd"), 1200, "fit", DLE),
    ("resnet50", "A100 SXM4 80GB", Job(batch=256, precision="amp-fp16", optimizer="sgd"), 2470, "fit", DLE),
    ("resnet50", "A100 SXM4 80GB", Job(batch=256, precision="fp32", optimizer="sgd"), 938, "fit", DLE),
    ("resnet50", "V100 SXM2 16GB", Job(batch=112, precision="fp32", optimizer="sgd"), 367, "fit", DLE),
    ("resnet50", "RTX 3090", Job(batch=512, precision="amp-fp16", optimizer="sgd"), 1218, "check", TIMM),
]


def main() -> int:
    m = load_matrices()
    errors = []
    print(f"{'model':10} {'gpu':16} {'precision':9} {'measured':>9} {'gpudoctor':>9} {'error':>7}  role   bound")
    for name, gpu_name, job, measured, role, _source in ROWS:
        gpu = m.gpu(gpu_name)
        st = compute.step_time(models.find_preset(name), job, gpu)
        err = st.samples_per_s / measured - 1
        errors.append(abs(err))
        print(f"{name:10} {gpu.name:16} {job.precision:9} {measured:9,.0f} {st.samples_per_s:9,.0f} "
              f"{100 * err:+6.1f} %  {role:6} {st.bound}")
    print(f"\nmedian |error| {100 * statistics.median(errors):.1f} %, max {100 * max(errors):.1f} % "
          f"({len(ROWS)} rows, {sum(r[4] == 'check' for r in ROWS)} not fitted on)")
    print("sources: " + "; ".join(sorted({r[5] for r in ROWS})))
    resnet, a100 = models.find_preset("resnet50"), m.gpu("A100 SXM4 80GB")
    one = compute.step_time(resnet, Job(batch=256, precision="amp-fp16", optimizer="sgd"), a100)
    eight = compute.step_time(resnet, Job(batch=256, precision="amp-fp16", optimizer="sgd", gpus=8), a100)
    steps = compute.total_steps(resnet, Job(batch=256, gpus=8, samples=1281167))
    print(f"8 x A100 ResNet-50, one ImageNet epoch: {eight.samples_per_s:,.0f} img/s "
          f"({eight.samples_per_s / one.samples_per_s:.2f} x one GPU); steps x step time = "
          f"{steps * eight.seconds / 3600:.3f} h, samples / throughput = {1281167 / eight.samples_per_s / 3600:.3f} h")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
