"""Reference PyTorch implementations of the plan presets, for exact mode.

Runs inside the TARGET interpreter (imported by exact_script.py), never in
gpudoctor's own process: standard library and torch only, Python 3.8+.

Each builder reproduces the published architecture closely enough that its
parameter count equals the one in gpudoctor/data/plan_presets.toml (a test
checks this), and follows the common implementation of the model family
(Hugging Face transformers for BERT/GPT-2/Llama, torchvision for ResNet/ViT,
ultralytics for YOLOv5, diffusers for the UNets), because what a model saves
for backward depends on the implementation, not only on the shapes.

build(name, batch, seq, image_size, opts) -> (model, inputs, loss_fn)
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_vision_presets import UNet, ResNet, WordLM, YOLOv5s


# --- transformer pieces -------------------------------------------------------------------
class NewGELU(nn.Module):
    """GPT-2's gelu_new as Hugging Face writes it, in Python (it saves more than F.gelu)."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class RMSNorm(nn.Module):
    """Llama RMSNorm as Hugging Face writes it (fp32 upcast inside)."""

    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        h = x.to(torch.float32)
        var = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(var + self.eps)
        return self.weight * h.to(dtype)


# On the CPU, SDPA with dropout falls back to the math kernel, which keeps the
# s x s attention probabilities; CUDA's fused kernels keep only an RNG state.
# exact_script.py turns dropout inside SDPA off when it simulates on the CPU,
# so the simulation keeps what a GPU run keeps.
SDPA_DROPOUT = True


def attention(q, k, v, causal, eager, dropout, training, mask=None):
    """q, k, v: (batch, heads, seq, head_dim)."""
    if not eager:
        p = dropout if training and SDPA_DROPOUT else 0.0
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal and mask is None,
                                              dropout_p=p)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        s = q.shape[-2]
        keep = torch.ones(s, s, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    if mask is not None:
        scores = scores + mask
    probs = F.dropout(torch.softmax(scores, dim=-1), dropout, training)
    return torch.matmul(probs, v)


class Block(nn.Module):
    """One transformer layer: pre-LN GPT/ViT/Llama or post-LN BERT."""

    def __init__(self, h, heads, kv_heads, ffn, gated, rms, bias, post_ln, dropout, act, eager, causal):
        super().__init__()
        self.h, self.heads, self.kv = h, heads, kv_heads
        self.hd = h // heads
        self.post_ln, self.dropout, self.eager, self.causal = post_ln, dropout, eager, causal
        norm = (lambda: RMSNorm(h)) if rms else (lambda: nn.LayerNorm(h, eps=1e-12 if post_ln else 1e-5))
        self.n1, self.n2 = norm(), norm()
        self.q = nn.Linear(h, h, bias=bias)
        self.k = nn.Linear(h, kv_heads * self.hd, bias=bias)
        self.v = nn.Linear(h, kv_heads * self.hd, bias=bias)
        self.o = nn.Linear(h, h, bias=bias)
        self.gated = gated
        self.up = nn.Linear(h, ffn, bias=bias)
        if gated:
            self.gate = nn.Linear(h, ffn, bias=bias)
        self.down = nn.Linear(ffn, h, bias=bias)
        self.act = NewGELU() if act == "gelu_new" else (nn.SiLU() if act == "silu" else nn.GELU())

    def _split(self, x, n):
        b, s, _ = x.shape
        return x.view(b, s, n, self.hd).transpose(1, 2)

    def _attn(self, x, mask):
        b, s, _ = x.shape
        q, k, v = self._split(self.q(x), self.heads), self._split(self.k(x), self.kv), self._split(self.v(x), self.kv)
        if self.kv != self.heads:  # GQA as HF/torchtune run it: K, V repeated to all heads
            rep = self.heads // self.kv
            k = k[:, :, None].expand(b, self.kv, rep, s, self.hd).reshape(b, self.heads, s, self.hd)
            v = v[:, :, None].expand(b, self.kv, rep, s, self.hd).reshape(b, self.heads, s, self.hd)
        out = attention(q, k, v, self.causal, self.eager, self.dropout, self.training, mask)
        out = out.transpose(1, 2).reshape(b, s, self.h)
        return F.dropout(self.o(out), self.dropout, self.training)

    def _mlp(self, x):
        hidden = self.act(self.gate(x)) * self.up(x) if self.gated else self.act(self.up(x))
        return F.dropout(self.down(hidden), self.dropout, self.training)

    def forward(self, x, mask=None):
        if self.post_ln:
            x = self.n1(x + self._attn(x, mask))
            return self.n2(x + self._mlp(x))
        x = x + self._attn(self.n1(x), mask)
        return x + self._mlp(self.n2(x))


class Transformer(nn.Module):
    def __init__(self, kind, vocab, h, layers, heads, kv_heads, ffn, max_pos, tied, eager, dropout,
                 num_labels=2, image=224, patch=16, classes=1000):
        super().__init__()
        self.kind = kind
        llama, bert, vit = kind == "llama", kind == "bert", kind == "vit"
        if vit:
            self.patch = nn.Conv2d(3, h, patch, stride=patch)
            self.cls = nn.Parameter(torch.zeros(1, 1, h))
            self.pos = nn.Parameter(torch.zeros(1, (image // patch) ** 2 + 1, h))
        else:
            self.wte = nn.Embedding(vocab, h)
            self.wpe = None if llama else nn.Embedding(max_pos, h)
            self.tte = nn.Embedding(2, h) if bert else None
            self.emb_ln = nn.LayerNorm(h, eps=1e-12) if bert else None
        act = "silu" if llama else ("gelu_new" if kind == "gpt2" else "gelu")
        self.layers = nn.ModuleList(
            Block(h, heads, kv_heads, ffn, gated=llama, rms=llama, bias=not llama, post_ln=bert,
                  dropout=dropout, act=act, eager=eager, causal=kind in ("gpt2", "llama"))
            for _ in range(layers))
        self.norm = None if bert else (RMSNorm(h) if llama else nn.LayerNorm(h, eps=1e-5 if kind == "gpt2" else 1e-6))
        self.dropout = dropout
        if bert:
            self.pooler = nn.Linear(h, h)
            self.head = nn.Linear(h, num_labels)
        elif vit:
            self.head = nn.Linear(h, classes)
        else:
            self.head = nn.Linear(h, vocab, bias=False)
            if tied:
                self.head.weight = self.wte.weight

    def forward(self, x):
        if self.kind == "vit":
            p = self.patch(x).flatten(2).transpose(1, 2)
            h = torch.cat([self.cls.expand(p.shape[0], -1, -1), p], dim=1) + self.pos
            h = F.dropout(h, self.dropout, self.training)
        else:
            h = self.wte(x)
            if self.wpe is not None:
                h = h + self.wpe(torch.arange(x.shape[1], device=x.device))
            if self.tte is not None:
                h = h + self.tte(torch.zeros_like(x))
            if self.emb_ln is not None:
                h = self.emb_ln(h)
            h = F.dropout(h, self.dropout, self.training)
        for layer in self.layers:
            h = layer(h)
        if self.norm is not None:
            h = self.norm(h)
        if self.kind == "bert":
            return self.head(F.dropout(torch.tanh(self.pooler(h[:, 0])), self.dropout, self.training))
        if self.kind == "vit":
            return self.head(h[:, 0])
        return self.head(h)


# --- the registry ------------------------------------------------------------------------
def _lm_loss(out, inputs):
    tokens = inputs[0]
    return F.cross_entropy(out.float().reshape(-1, out.shape[-1]), tokens.reshape(-1))


def _cls_loss(out, inputs):
    return F.cross_entropy(out.float(), torch.zeros(out.shape[0], dtype=torch.long, device=out.device))


def _mse_loss(out, inputs):
    return F.mse_loss(out.float(), torch.zeros_like(out, dtype=torch.float32))


def _yolo_loss(out, inputs):
    return sum(o.float().pow(2).mean() for o in out)


TRANSFORMERS = {
    # name: (kind, vocab, hidden, layers, heads, kv_heads, ffn, max_pos, tied)
    "bert-base": ("bert", 30522, 768, 12, 12, 12, 3072, 512, False),
    "bert-large": ("bert", 30522, 1024, 24, 16, 16, 4096, 512, False),
    "gpt2": ("gpt2", 50257, 768, 12, 12, 12, 3072, 1024, True),
    "gpt2-medium": ("gpt2", 50257, 1024, 24, 16, 16, 4096, 1024, True),
    "gpt2-large": ("gpt2", 50257, 1280, 36, 20, 20, 5120, 1024, True),
    "gpt2-xl": ("gpt2", 50257, 1600, 48, 25, 25, 6400, 1024, True),
    "llama-3.2-1b": ("llama", 128256, 2048, 16, 32, 8, 8192, 0, True),
    "llama-3.2-3b": ("llama", 128256, 3072, 28, 24, 8, 8192, 0, True),
    "llama2-7b": ("llama", 32000, 4096, 32, 32, 32, 11008, 0, False),
    "llama3-8b": ("llama", 128256, 4096, 32, 32, 8, 14336, 0, False),
    "llama2-13b": ("llama", 32000, 5120, 40, 40, 40, 13824, 0, False),
    "llama3-70b": ("llama", 128256, 8192, 80, 64, 8, 28672, 0, False),
    "vit-b16": ("vit", 0, 768, 12, 12, 12, 3072, 0, False),
    "vit-l16": ("vit", 0, 1024, 24, 16, 16, 4096, 0, False),
}


def names():
    return sorted(list(TRANSFORMERS) + ["mlp", "lstm-2layer", "resnet18", "resnet50", "yolov5s",
                                        "ddpm-unet", "sd-unet"])


def build(name, batch, seq=None, image_size=None, opts=None):
    """The model, one batch of inputs (a tuple) and a loss function(out, inputs)."""
    opts = opts or {}
    eager = opts.get("attention") == "eager"
    if name in TRANSFORMERS:
        kind, vocab, h, layers, heads, kv, ffn, max_pos, tied = TRANSFORMERS[name]
        dropout = 0.1 if kind in ("bert", "gpt2") else 0.0
        if kind == "vit":
            size = image_size or 224
            model = Transformer(kind, 0, h, layers, heads, kv, ffn, 0, False, eager, dropout, image=size)
            return model, (torch.randn(batch, 3, size, size),), _cls_loss
        s = seq or (max_pos or 2048)
        model = Transformer(kind, vocab, h, layers, heads, kv, ffn, max_pos, tied, eager, dropout)
        return model, (torch.randint(0, vocab, (batch, s)),), (_cls_loss if kind == "bert" else _lm_loss)
    if name == "mlp":
        model = nn.Sequential(nn.Flatten(), nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                              nn.Linear(1024, 10))
        return model, (torch.randn(batch, 784),), _cls_loss
    if name == "lstm-2layer":
        s = seq or 35
        return WordLM(), (torch.randint(0, 33278, (s, batch)),), _lm_loss
    if name in ("resnet18", "resnet50"):
        size = image_size or 224
        model = ResNet([2, 2, 2, 2], True) if name == "resnet18" else ResNet([3, 4, 6, 3], False)
        return model, (torch.randn(batch, 3, size, size),), _cls_loss
    if name == "yolov5s":
        size = image_size or 640
        return YOLOv5s(), (torch.randn(batch, 3, size, size),), _yolo_loss
    if name == "ddpm-unet":
        size = image_size or 32
        model = UNet(3, 128, (1, 2, 2, 2), 2, (1,), 0.1, cross=False)
        return model, (torch.randn(batch, 3, size, size), torch.randint(0, 1000, (batch,))), _mse_loss
    if name == "sd-unet":
        latent = (image_size or 512) // 8
        model = UNet(4, 320, (1, 2, 4, 4), 2, (0, 1, 2), 0.0, cross=True)
        return model, (torch.randn(batch, 4, latent, latent), torch.randint(0, 1000, (batch,)),
                       torch.randn(batch, 77, 768)), _mse_loss
    raise KeyError(name)
