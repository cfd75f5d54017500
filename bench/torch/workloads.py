"""Training workloads of the PyTorch benchmarks: a GPT-2-style language
model, a small CNN and a small vision transformer, trained with torch.compile, with synthetic data made
once on the GPU (so that a step never waits for the host). Shared by
check_training.py (loss with Baton == loss without) and colocate_torch.py
(inference next to training)."""

import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes: "check" is small (quick to compile, for the correctness test);
# "bench" is what the colocation benchmark trains (its Python issues a step
# in about 75% of the step's GPU time, so host time per launch shows in
# steps/s); "large" has the same kernels' structure on four times the
# tokens or images, a step the GPU, not the host, limits.
GPT_SIZES = {
    "check": dict(layers=2, d=256, heads=4, seq=128, vocab=2048, batch=8),
    "bench": dict(layers=4, d=768, heads=12, seq=512, vocab=50304, batch=12),
    "large": dict(layers=4, d=768, heads=12, seq=1024, vocab=50304, batch=24),
}
# The vision transformer only trains in the correctness test: 8 x 8 patches
# and a class token, 65 tokens (no power of two: every kernel masks).
VIT_SIZES = {
    "check": dict(layers=2, d=192, heads=3, image=32, patch=4, classes=10,
                  batch=32),
}
CNN_SIZES = {
    "check": dict(width=32, blocks=2, image=32, classes=10, batch=32),
    "bench": dict(width=64, blocks=3, image=64, classes=100, batch=128),
    "large": dict(width=64, blocks=3, image=64, classes=100, batch=512),
}


def causal(b, h, q, kv):
    return q >= kv


class Block(nn.Module):
    """A pre-norm transformer block. `attention`: "sdpa"
    (scaled_dot_product_attention) or "flex" (flex_attention with the
    model's block mask: Inductor's flex attention templates, forward and
    backward); `causal`: sdpa's is_causal."""

    def __init__(self, d, heads, attention="sdpa", causal=True):
        super().__init__()
        self.heads, self.attention, self.causal = heads, attention, causal
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x, block_mask=None):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        if self.attention == "flex":
            from torch.nn.attention.flex_attention import flex_attention
            if block_mask is None:  # flex_attention would attend to all
                raise ValueError("flex attention needs the model's causal "
                                 "block mask (made by build())")
            y = flex_attention(q, k, v, block_mask=block_mask)
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    """GPT-2 style (nanoGPT's layout: pre-norm blocks, tied embedding)."""

    def __init__(self, layers, d, heads, seq, vocab, attention="sdpa", **_):
        super().__init__()
        self.seq = seq
        self.block_mask = None  # flex: made on the GPU by build()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, attention)
                                    for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight
        for name, p in self.named_parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02 / (math.sqrt(2 * layers)
                                                 if name.endswith("proj.weight")
                                                 else 1))

    def forward(self, idx, targets):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for block in self.blocks:
            x = block(x, self.block_mask)
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]),
                               targets.view(-1))


class ViT(nn.Module):
    """A vision transformer: a strided convolution cuts the image into
    patches, a class token and learned positions join them, non-causal
    blocks follow, and the class token's features are classified."""

    def __init__(self, layers, d, heads, image, patch, classes, **_):
        super().__init__()
        tokens = (image // patch) ** 2 + 1
        self.embed = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, tokens, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads, causal=False)
                                    for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x, targets):
        p = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(p.shape[0], -1, -1), p], dim=1)
        x = x + self.pos
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x[:, 0]))
        return F.cross_entropy(logits.float(), targets)


class ResBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.c1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(c_out)
        self.c2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(c_out)
        self.skip = (nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                                   nn.BatchNorm2d(c_out))
                     if stride != 1 or c_in != c_out else nn.Identity())

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + self.skip(x))


class CNN(nn.Module):
    """A small ResNet: a stem, `blocks` stages of two residual blocks."""

    def __init__(self, width, blocks, classes, **_):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        layers, c = [], width
        for i in range(blocks):
            out = width * 2 ** i
            layers += [ResBlock(c, out, 1 if i == 0 else 2), ResBlock(out, out, 1)]
            c = out
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(c, classes)

    def forward(self, x, targets):
        y = self.layers(self.stem(x))
        # A mean, not adaptive_avg_pool2d: its CUDA backward has no
        # deterministic implementation.
        logits = self.fc(y.mean(dim=(2, 3)))
        return F.cross_entropy(logits.float(), targets)


def sizes(kind, scale):
    return {"gpt": GPT_SIZES, "cnn": CNN_SIZES, "vit": VIT_SIZES}[kind][scale]


def build(kind, scale, seed=0, device="cuda", attention="sdpa"):
    """The model (uncompiled, on the GPU) and its optimizer. `attention`
    (GPT only): "sdpa" or "flex" (causal flex_attention)."""
    torch.manual_seed(seed)
    cfg = sizes(kind, scale)
    model = (GPT(**cfg, attention=attention) if kind == "gpt"
             else ViT(**cfg) if kind == "vit" else CNN(**cfg)).to(device)
    if kind == "gpt" and attention == "flex":
        # Made outside the compiled region, as flex_attention's
        # documentation recommends: the mask is an input of the graph.
        from torch.nn.attention.flex_attention import create_block_mask
        model.block_mask = create_block_mask(causal, None, None, model.seq,
                                             model.seq, device=device)
    if kind == "cnn":
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01,
                            fused=True)
    return model, opt


def batches(kind, scale, count, seed=1, device="cuda"):
    """`count` synthetic batches, made once on the GPU."""
    g = torch.Generator(device=device).manual_seed(seed)
    cfg = sizes(kind, scale)
    out = []
    for _ in range(count):
        if kind == "gpt":
            x = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]),
                              device=device, generator=g)
            y = torch.roll(x, -1, dims=1)
        else:
            x = torch.randn(cfg["batch"], 3, cfg["image"], cfg["image"],
                            device=device, generator=g)
            x = x.to(memory_format=torch.channels_last)
            y = torch.randint(0, cfg["classes"], (cfg["batch"],), device=device,
                              generator=g)
        out.append((x, y))
    return out


def make_step(compiled, opt):
    """One training step; returns the loss (a GPU tensor: no host sync)."""
    def step(x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = compiled(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss.detach()
    return step


def deterministic():
    """Settings under which two runs of the same kernels give the same
    bits (the environment variable must be set before CUDA starts)."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    # warn_only: an op without a deterministic implementation warns instead
    # of failing; check_training.py then sees two reference runs differ.
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


class Trainer:
    """Runs steps on the calling thread until `stop` is set, recording when
    each one finished. Each step ends with a wait on the stream (released
    GIL), so the host never runs far ahead of the GPU: a thread of another
    job in the process gets the interpreter between steps, and launches
    never block in a full queue with the GIL held."""

    def __init__(self, step, data):
        self.step, self.data = step, data
        self.stamps = []
        # Per step, the host's time to issue it (before the wait): close to
        # the step's time when the host, not the GPU, limits training.
        self.issue_s = []
        self.last_loss = None

    def run(self, stop, steps=None):
        i = 0
        stream = torch.cuda.current_stream()
        while not stop.is_set() and (steps is None or i < steps):
            x, y = self.data[i % len(self.data)]
            t = time.perf_counter()
            self.last_loss = self.step(x, y)
            self.issue_s.append(time.perf_counter() - t)
            stream.synchronize()
            self.stamps.append(time.time())
            i += 1
        return i


def warm_trainer(kind, scale, stop):
    """A Trainer of the torch.compile'd `kind` model at `scale`, compiled
    (three steps) and warmed up (five more); returns it and the
    time.monotonic() between the two, which counts as "launched since" for
    baton.triton.prepare_loaded."""
    model, opt = build(kind, scale)
    step = make_step(torch.compile(model), opt)
    trainer = Trainer(step, batches(kind, scale, 8))
    trainer.run(stop, steps=3)  # compiles
    since = time.monotonic()
    trainer.run(stop, steps=5)
    return trainer, since
