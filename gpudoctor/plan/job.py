"""What is being run: batch, precision, optimizer, memory-saving techniques,
parallelism, and how much data."""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.versions import driver_at_least

PRECISIONS = ("fp32", "amp-fp16", "amp-bf16", "bf16", "fp8")
OPTIMIZERS = ("adamw", "adam", "sgd", "adam8bit", "adafactor", "paged-adamw", "paged-adamw8bit")
# bitsandbytes' paged optimizers keep their states in CUDA managed memory: resident on the
# GPU while there is room, paged out to CPU memory under pressure, invisible to torch's
# allocator statistics.
PAGED_OPTIMIZERS = ("paged-adamw", "paged-adamw8bit")
QUANTIZERS = ("bitsandbytes", "torchao")  # QLoRA's NF4 implementation (torchao: torchtune)
# bitsandbytes before this release kept each 4-bit layer's input for a backward that
# never uses it (bitsandbytes PR #1270, merged 2024-07-16, shipped in 0.43.2).
BNB_INPUT_FIX = "0.43.2"
LOSS_CHUNKS = 8  # torchtune CEWithChunkedOutputLoss default num_output_chunks
OPTIMIZER_IMPLS = ("foreach", "fused", "per-param")
LORA_TARGETS = ("qv", "attn", "all")
GIB = float(1 << 30)


class JobError(ValueError):
    """Options that contradict each other."""


@dataclass(frozen=True)
class Job:
    """How the model is run: the training (or inference) setup the plan's flags describe."""

    batch: int = 1  # micro-batch per GPU
    seq: int | None = None  # tokens per sample (None: the model's context length)
    image_size: int | None = None
    precision: str = "amp-bf16"
    optimizer: str = "adamw"
    # foreach: torch's default on CUDA, one parameter-sized temporary in the step;
    # fused: none; per-param: a loop (Hugging Face's old AdamW, bitsandbytes).
    optimizer_impl: str = "foreach"
    grad_checkpointing: bool = False
    grad_accum: int = 1
    lora_rank: int = 0
    qlora: bool = False
    lora_targets: str = "qv"
    zero: int = 0  # DeepSpeed ZeRO stage
    fsdp: bool = False
    gpus: int = 1
    inference: bool = False
    context: int | None = None  # inference: tokens of prompt + generation held in the KV cache
    offload_optimizer: bool = False  # optimizer states in CPU memory (ZeRO-Offload, paged optimizers)
    optimizer_in_backward: bool = False  # step fused into backward: no full gradient buffer
    # Gradients still allocated when the next forward starts: with gradient
    # accumulation always; without it only if zero_grad(set_to_none=False), the
    # default before PyTorch 2.0.
    keep_grads: bool = False
    attention: str | None = None  # "sdpa" | "eager"; None: the model's default
    cuda_context_gib: float = 1.0
    # What the caching allocator holds beyond live tensors (fragmentation), as a
    # fraction of the activation and temporary memory that churns every step.
    allocator_slack: float = 0.10
    # The model returns fp32 logits and the loop keeps them (torchtune in 2024).
    fp32_logits: bool = False
    # QLoRA: NF4 implementation, bitsandbytes release (None: one with the PR #1270 fix,
    # an assumption the plan states), double quantization of the block constants.
    quantizer: str = "bitsandbytes"
    bnb_version: str | None = None
    double_quant: bool = True
    lora_head: bool = False  # LoRA adapters on the LM head too
    # torchtune-style memory savers
    chunked_ce: bool = False  # cross-entropy over LOSS_CHUNKS chunks of the logits
    compile: bool = False  # torch.compile of the layers and the loss
    activation_offload: bool = False  # saved activations streamed to CPU memory
    input_rate: float | None = None  # samples/s the data pipeline delivers per GPU (None: keeps up)
    # how much work (for time and cost)
    samples: int | None = None
    epochs: float = 1.0
    tokens: float | None = None

    def check(self) -> None:
        if self.precision not in PRECISIONS:
            raise JobError(f"unknown precision {self.precision!r} (one of {', '.join(PRECISIONS)})")
        if self.optimizer not in OPTIMIZERS:
            raise JobError(f"unknown optimizer {self.optimizer!r} (one of {', '.join(OPTIMIZERS)})")
        if self.optimizer_impl not in OPTIMIZER_IMPLS:
            raise JobError(f"unknown optimizer implementation {self.optimizer_impl!r}")
        if self.quantizer not in QUANTIZERS:
            raise JobError(f"unknown quantizer {self.quantizer!r} (one of {', '.join(QUANTIZERS)})")
        if self.lora_targets not in LORA_TARGETS:
            raise JobError(f"unknown LoRA targets {self.lora_targets!r} (one of {', '.join(LORA_TARGETS)})")
        for name in ("batch", "grad_accum", "gpus"):
            if getattr(self, name) < 1:
                raise JobError(f"--{name.replace('_', '-')} must be at least 1")
        if self.zero not in (0, 1, 2, 3):
            raise JobError("--zero must be 1, 2 or 3")
        if self.zero and self.fsdp:
            raise JobError("--zero and --fsdp are alternatives; pick one")
        if (self.zero or self.fsdp) and self.gpus < 2:
            raise JobError("--zero/--fsdp shard across GPUs: give --gpus N (N >= 2)")
        if self.lora_rank < 0:
            raise JobError("--lora RANK must be positive")
        if self.optimizer_in_backward and self.grad_accum > 1:
            raise JobError("--optimizer-in-backward cannot be combined with --grad-accum (no gradient "
                           "buffer to accumulate into)")
        if self.inference and (self.lora_rank or self.zero or self.fsdp or self.grad_checkpointing):
            raise JobError("--inference plans weights + KV cache; LoRA, ZeRO/FSDP and checkpointing "
                           "are training options")

    @property
    def paged(self) -> bool:
        return self.optimizer in PAGED_OPTIMIZERS

    def bnb_keeps_inputs(self) -> bool:
        """QLoRA on a bitsandbytes release without the PR #1270 fix."""
        if not self.qlora or self.quantizer != "bitsandbytes" or not self.bnb_version:
            return False
        return driver_at_least(self.bnb_version, BNB_INPUT_FIX) is False  # numeric, field by field

    @property
    def peft(self) -> bool:
        return self.lora_rank > 0 or self.qlora

    @property
    def sharded(self) -> int:
        """0 (none), 1-3 (ZeRO stage); FSDP full sharding counts as 3."""
        return 3 if self.fsdp else self.zero
