"""Models from the libraries a PyTorch user trains with, for
check_training.py: timm and torchvision image classifiers and Hugging Face
transformers language models, each built from a configuration with random
weights (nothing is downloaded), small enough to compile in a minute.
Their Triton kernels are ones this project's own models (workloads.py) do
not make: squeeze-excitation, hard-swish, depthwise and grouped
convolutions' neighbours, RMSNorm, rotary embeddings, gated MLPs,
relative position buckets, channel shuffles.

A name is LIBRARY:MODEL, LIBRARY one of timm, tv (torchvision) and hf;
build(name) returns (model, optimizer, batches) in workloads.py's shapes:
model(x, y) returns the loss, batches is a list of (x, y) on the GPU.
Dropout and drop-path are off, so that two runs of the same steps give
the same bits.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

IMAGE = 64       # pixels a side
CLASSES = 100
IMAGE_BATCH = 32
VOCAB = 1024
SEQ = 128
TEXT_BATCH = 8

# Every model, the libraries interleaved: a run cut short by its time budget
# has still seen each of them.
NAMES = ("hf:llama", "timm:efficientnet_b0", "hf:t5", "timm:convnext_atto",
         "tv:shufflenet_v2_x0_5", "hf:bert", "timm:mobilenetv3_small_100",
         "timm:deit_tiny_patch16_224", "hf:gpt2", "timm:resnet26d",
         "tv:densenet121")
# timm models' create_model arguments beyond the common ones.
TIMM_ARGS = {"deit_tiny_patch16_224": {"img_size": IMAGE}}


class Classifier(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, targets):
        return F.cross_entropy(self.net(x).float(), targets)


class LanguageModel(nn.Module):
    """A transformers model trained on its own loss: the next token for the
    causal models (the library shifts the labels), every token for BERT's
    masked LM, the shifted sequence for T5."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, labels):
        return self.net(input_ids=x, labels=labels).loss.float()


def _hf_model(kind):
    import transformers as tf
    common = {"vocab_size": VOCAB, "use_cache": False}
    if kind == "llama":
        cfg = tf.LlamaConfig(hidden_size=128, intermediate_size=352,
                             num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, max_position_embeddings=SEQ,
                             **common)
        return tf.LlamaForCausalLM(cfg)
    if kind == "bert":
        cfg = tf.BertConfig(hidden_size=128, intermediate_size=512,
                            num_hidden_layers=2, num_attention_heads=4,
                            max_position_embeddings=SEQ, hidden_dropout_prob=0.0,
                            attention_probs_dropout_prob=0.0, **common)
        return tf.BertForMaskedLM(cfg)
    if kind == "gpt2":
        cfg = tf.GPT2Config(n_embd=128, n_layer=2, n_head=4, n_positions=SEQ,
                            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                            **common)
        return tf.GPT2LMHeadModel(cfg)
    if kind == "t5":
        cfg = tf.T5Config(d_model=128, d_kv=32, d_ff=256, num_layers=2,
                          num_decoder_layers=2, num_heads=4, dropout_rate=0.0,
                          decoder_start_token_id=0, pad_token_id=0, **common)
        return tf.T5ForConditionalGeneration(cfg)
    raise ValueError(f"unknown transformers model {kind!r}")


def _vision_model(library, kind):
    if library == "timm":
        import timm
        return timm.create_model(kind, pretrained=False, num_classes=CLASSES,
                                 drop_rate=0.0, drop_path_rate=0.0,
                                 **TIMM_ARGS.get(kind, {}))
    import torchvision
    return getattr(torchvision.models, kind)(weights=None, num_classes=CLASSES)


def build(name, count=4, seed=0, device="cuda"):
    """(model, optimizer, batches) of the zoo model `name`."""
    if name not in NAMES:
        raise ValueError(f"unknown zoo model {name!r} (one of {NAMES})")
    library, _, kind = name.partition(":")
    torch.manual_seed(seed)
    g = torch.Generator(device=device).manual_seed(seed + 1)
    data = []
    if library == "hf":
        model = LanguageModel(_hf_model(kind)).to(device)
        for _ in range(count):
            x = torch.randint(1, VOCAB, (TEXT_BATCH, SEQ), device=device,
                              generator=g)
            data.append((x, torch.roll(x, 1, dims=1) if kind == "t5" else x))
    else:
        model = Classifier(_vision_model(library, kind)).to(device)
        model = model.to(memory_format=torch.channels_last)
        for _ in range(count):
            x = torch.randn(IMAGE_BATCH, 3, IMAGE, IMAGE, device=device,
                            generator=g).to(memory_format=torch.channels_last)
            y = torch.randint(0, CLASSES, (IMAGE_BATCH,), device=device,
                              generator=g)
            data.append((x, y))
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01,
                            fused=True)
    return model, opt, data
