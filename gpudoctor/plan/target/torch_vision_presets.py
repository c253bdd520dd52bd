"""Reference PyTorch implementations of the non-transformer presets (ResNet,
YOLOv5s, the DDPM and Stable Diffusion UNets, the word-level LSTM), used by
torch_presets.build. Runs in the TARGET interpreter: stdlib and torch only,
Python 3.8+.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


# --- convolutional networks --------------------------------------------------------------
class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride, basic):
        super().__init__()
        cout = width if basic else width * 4
        if basic:
            self.convs = nn.ModuleList([nn.Conv2d(cin, width, 3, stride, 1, bias=False),
                                        nn.Conv2d(width, width, 3, 1, 1, bias=False)])
        else:  # torchvision ResNet v1.5: the stride sits on the 3x3 convolution
            self.convs = nn.ModuleList([nn.Conv2d(cin, width, 1, bias=False),
                                        nn.Conv2d(width, width, 3, stride, 1, bias=False),
                                        nn.Conv2d(width, cout, 1, bias=False)])
        self.bns = nn.ModuleList(nn.BatchNorm2d(c.out_channels) for c in self.convs)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = x
        for i, (conv, bn) in enumerate(zip(self.convs, self.bns)):
            out = bn(conv(out))
            if i < len(self.convs) - 1:
                out = F.relu(out)
        return F.relu(out + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self, blocks, basic, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for i, n in enumerate(blocks):
            width = 64 * 2 ** i
            for j in range(n):
                layers.append(Bottleneck(cin, width, 2 if (j == 0 and i > 0) else 1, basic))
                cin = width if basic else width * 4
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.layers(self.stem(x)), 1), 1))


def conv_bn_silu(cin, cout, k=1, s=1, p=None):
    """ultralytics Conv: Conv2d(bias=False) + BatchNorm2d + SiLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2 if p is None else p, bias=False),
                         nn.BatchNorm2d(cout, eps=1e-3, momentum=0.03), nn.SiLU())


class C3(nn.Module):
    def __init__(self, cin, cout, n, shortcut=True):
        super().__init__()
        c = cout // 2
        self.cv1, self.cv2, self.cv3 = conv_bn_silu(cin, c), conv_bn_silu(cin, c), conv_bn_silu(2 * c, cout)
        self.m = nn.ModuleList(nn.Sequential(conv_bn_silu(c, c), conv_bn_silu(c, c, 3)) for _ in range(n))
        self.shortcut = shortcut

    def forward(self, x):
        y = self.cv1(x)
        for b in self.m:
            y = y + b(y) if self.shortcut else b(y)
        return self.cv3(torch.cat([y, self.cv2(x)], 1))


class SPPF(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        c = cin // 2
        self.cv1, self.cv2 = conv_bn_silu(cin, c), conv_bn_silu(4 * c, cout)

    def forward(self, x):
        x = self.cv1(x)
        y1 = F.max_pool2d(x, 5, 1, 2)
        y2 = F.max_pool2d(y1, 5, 1, 2)
        return self.cv2(torch.cat([x, y1, y2, F.max_pool2d(y2, 5, 1, 2)], 1))


class YOLOv5s(nn.Module):
    """yolov5s.yaml (v6.x): depth 0.33, width 0.50, 80 classes, 3 anchors per level."""

    def __init__(self, nc=80):
        super().__init__()
        self.b = nn.ModuleList([
            conv_bn_silu(3, 32, 6, 2, 2), conv_bn_silu(32, 64, 3, 2), C3(64, 64, 1),
            conv_bn_silu(64, 128, 3, 2), C3(128, 128, 2), conv_bn_silu(128, 256, 3, 2), C3(256, 256, 3),
            conv_bn_silu(256, 512, 3, 2), C3(512, 512, 1), SPPF(512, 512)])
        self.h10, self.h13 = conv_bn_silu(512, 256), C3(512, 256, 1, False)
        self.h14, self.h17 = conv_bn_silu(256, 128), C3(256, 128, 1, False)
        self.h18, self.h20 = conv_bn_silu(128, 128, 3, 2), C3(256, 256, 1, False)
        self.h21, self.h23 = conv_bn_silu(256, 256, 3, 2), C3(512, 512, 1, False)
        self.detect = nn.ModuleList(nn.Conv2d(c, 3 * (nc + 5), 1) for c in (128, 256, 512))

    def forward(self, x):
        feats = []
        for i, m in enumerate(self.b):
            x = m(x)
            feats.append(x)
        p10 = self.h10(x)
        p13 = self.h13(torch.cat([F.interpolate(p10, scale_factor=2.0), feats[6]], 1))
        p14 = self.h14(p13)
        p17 = self.h17(torch.cat([F.interpolate(p14, scale_factor=2.0), feats[4]], 1))
        p20 = self.h20(torch.cat([self.h18(p17), p14], 1))
        p23 = self.h23(torch.cat([self.h21(p20), p10], 1))
        return [d(p) for d, p in zip(self.detect, (p17, p20, p23))]


# --- diffusion UNets ---------------------------------------------------------------------
class ResBlock(nn.Module):
    def __init__(self, cin, cout, temb, dropout, eps=1e-5):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(32, cin, eps=eps), nn.Conv2d(cin, cout, 3, 1, 1)
        self.t = nn.Linear(temb, cout)
        self.n2, self.c2 = nn.GroupNorm(32, cout, eps=eps), nn.Conv2d(cout, cout, 3, 1, 1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else None
        self.dropout = dropout

    def forward(self, x, t):
        h = self.c1(F.silu(self.n1(x))) + self.t(F.silu(t))[:, :, None, None]
        h = self.c2(F.dropout(F.silu(self.n2(h)), self.dropout, self.training))
        return h + (x if self.skip is None else self.skip(x))


class SelfAttn2d(nn.Module):
    """DDPM attention block: GroupNorm, 1x1 q/k/v/out, one head."""

    def __init__(self, c):
        super().__init__()
        self.n = nn.GroupNorm(32, c)
        self.qkv, self.out = nn.Conv2d(c, 3 * c, 1), nn.Conv2d(c, c, 1)

    def forward(self, x):
        b, c, hh, ww = x.shape
        q, k, v = self.qkv(self.n(x)).reshape(b, 3, 1, c, hh * ww).transpose(-1, -2).unbind(1)
        o = F.scaled_dot_product_attention(q, k, v).transpose(-1, -2).reshape(b, c, hh, ww)
        return x + self.out(o)


class CrossAttnBlock(nn.Module):
    """diffusers Transformer2DModel (SD 1.x): GN, 1x1 in, self-attn, cross-attn, GEGLU FF, 1x1 out."""

    def __init__(self, c, ctx=768, heads=8):
        super().__init__()
        self.heads = heads
        self.gn, self.pin, self.pout = nn.GroupNorm(32, c, eps=1e-6), nn.Conv2d(c, c, 1), nn.Conv2d(c, c, 1)
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(c), nn.LayerNorm(c), nn.LayerNorm(c)
        self.q1, self.k1, self.v1 = (nn.Linear(c, c, bias=False) for _ in range(3))
        self.o1 = nn.Linear(c, c)
        self.q2 = nn.Linear(c, c, bias=False)
        self.k2, self.v2 = nn.Linear(ctx, c, bias=False), nn.Linear(ctx, c, bias=False)
        self.o2 = nn.Linear(c, c)
        self.ff1, self.ff2 = nn.Linear(c, 8 * c), nn.Linear(4 * c, c)

    def _mha(self, q, k, v):
        b, s, c = q.shape
        split = lambda t: t.view(b, t.shape[1], self.heads, c // self.heads).transpose(1, 2)  # noqa: E731
        return F.scaled_dot_product_attention(split(q), split(k), split(v)).transpose(1, 2).reshape(b, s, c)

    def forward(self, x, ctx):
        b, c, hh, ww = x.shape
        h = self.pin(self.gn(x)).permute(0, 2, 3, 1).reshape(b, hh * ww, c)
        n = self.ln1(h)
        h = h + self.o1(self._mha(self.q1(n), self.k1(n), self.v1(n)))
        n = self.ln2(h)
        h = h + self.o2(self._mha(self.q2(n), self.k2(ctx), self.v2(ctx)))
        a, gate = self.ff1(self.ln3(h)).chunk(2, dim=-1)
        h = h + self.ff2(a * F.gelu(gate))
        return x + self.pout(h.reshape(b, hh, ww, c).permute(0, 3, 1, 2))


class UNet(nn.Module):
    """DDPM (Ho et al.) and Stable Diffusion 1.x UNets, diffusers layout."""

    def __init__(self, cin, base, mult, nres, attn_levels, dropout, cross, temb_in=None):
        super().__init__()
        self.base, self.cross = base, cross
        temb = base * 4
        self.temb_in = temb_in or base
        self.t1, self.t2 = nn.Linear(self.temb_in, temb), nn.Linear(temb, temb)
        self.cin = nn.Conv2d(cin, base, 3, 1, 1)
        attn = (lambda c: CrossAttnBlock(c)) if cross else (lambda c: SelfAttn2d(c))
        eps = 1e-5
        chans, skips, c = [base * m for m in mult], [base], base
        self.down = nn.ModuleList()
        for lvl, ch in enumerate(chans):
            for _ in range(nres):
                self.down.append(nn.ModuleList([ResBlock(c, ch, temb, dropout, eps)] +
                                               ([attn(ch)] if lvl in attn_levels else [])))
                c = ch
                skips.append(c)
            if lvl < len(chans) - 1:
                self.down.append(nn.ModuleList([nn.Conv2d(c, c, 3, 2, 1)]))
                skips.append(c)
        self.mid = nn.ModuleList([ResBlock(c, c, temb, dropout, eps), attn(c), ResBlock(c, c, temb, dropout, eps)])
        self.up = nn.ModuleList()
        for lvl in reversed(range(len(chans))):
            ch = chans[lvl]
            for _ in range(nres + 1):
                self.up.append(nn.ModuleList([ResBlock(c + skips.pop(), ch, temb, dropout, eps)] +
                                             ([attn(ch)] if lvl in attn_levels else [])))
                c = ch
            if lvl > 0:
                self.up.append(nn.ModuleList([nn.Upsample(scale_factor=2.0), nn.Conv2d(c, c, 3, 1, 1)]))
        self.nout, self.cout = nn.GroupNorm(32, c, eps=eps), nn.Conv2d(c, cin, 3, 1, 1)

    def _temb(self, t):
        half = self.temb_in // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device, dtype=torch.float32) / half)
        args = t.float()[:, None] * freqs[None]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1).to(self.t1.weight.dtype)
        return self.t2(F.silu(self.t1(emb)))

    def _run(self, mods, h, t, ctx):
        for m in mods:
            if isinstance(m, ResBlock):
                h = m(h, t)
            elif isinstance(m, CrossAttnBlock):
                h = m(h, ctx)
            else:
                h = m(h)
        return h

    def forward(self, x, t, ctx=None):
        temb = self._temb(t)
        h = self.cin(x)
        hs = [h]
        for mods in self.down:
            h = self._run(mods, h, temb, ctx)
            hs.append(h)
        h = self._run(self.mid, h, temb, ctx)
        for mods in self.up:
            if isinstance(mods[0], ResBlock):
                h = torch.cat([h, hs.pop()], dim=1)
            h = self._run(mods, h, temb, ctx)
        return self.cout(F.silu(self.nout(h)))


class WordLM(nn.Module):
    """pytorch/examples word_language_model: embedding, 2-layer LSTM, decoder."""

    def __init__(self, vocab=33278, emb=200, hidden=200, layers=2, dropout=0.2):
        super().__init__()
        self.enc, self.rnn = nn.Embedding(vocab, emb), nn.LSTM(emb, hidden, layers, dropout=dropout)
        self.dec, self.dropout = nn.Linear(hidden, vocab), dropout

    def forward(self, x):  # x: (seq, batch)
        out, _ = self.rnn(F.dropout(self.enc(x), self.dropout, self.training))
        return self.dec(F.dropout(out, self.dropout, self.training))
