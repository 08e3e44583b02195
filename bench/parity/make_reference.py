#!/usr/bin/env python3
"""bench/parity/make_reference.py: the PyTorch side of the engine parity check.

Builds a tiny random Qwen3 with transformers (float32 weights, saved as a Hugging Face directory), wraps it with a
PEFT LoRA (r=4, alpha=8, all seven linears; lora_B made non-zero so every gradient is non-trivial) and saves the
adapter, then computes in float64 on fixed token sequences:
  - logits with the adapter disabled (base) and enabled,
  - the loss  sum_seq sum_t  -w_t * log p(target_t)  and its gradients with respect to every LoRA tensor.
Writes OUT/model/, OUT/adapter/, OUT/reference.safetensors (float32) and OUT/inputs.json.
Then, on a machine with Node: node bin/run-ts.mjs bench/parity/compare.ts OUT   (see bench/parity/README.md).
Needs: torch, transformers (4.5x or 5.x), peft, safetensors. CPU is enough (the model is tiny).
--shape qwen3-0.6b / qwen3-4b: the same check on those shapes (tied embeddings, vocabulary 151,936) with random
weights, LoRA r=32 alpha=64, two random sequences of --tokens tokens; float64 on --device (cuda where there is one).
"""
import argparse
import json
import os
import random

import peft
import torch
import transformers
from peft import LoraConfig, get_peft_model
from safetensors.torch import save_file
from transformers import Qwen3Config, Qwen3ForCausalLM

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
# Two sequences of different lengths (run separately: no padding), vocabulary 97.
SEQUENCES = [
    [95, 3, 17, 42, 8, 61, 90, 23, 5, 77, 12, 34],
    [95, 50, 2, 88, 19, 7, 66],
]


# tiny: the original check; qwen3-*: the shapes of shared/GPU.md's anchors (random weights, LoRA r32 on all linears).
SHAPES = {
    "tiny": dict(config=dict(vocab_size=97, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, head_dim=16, tie_word_embeddings=False, bos_token_id=95, eos_token_id=96),
                 rank=4, alpha=8, init_std=0.2),
    "qwen3-0.6b": dict(config=dict(vocab_size=151936, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
                                   num_attention_heads=16, num_key_value_heads=8, head_dim=128, tie_word_embeddings=True,
                                   bos_token_id=151643, eos_token_id=151645),
                       rank=32, alpha=64, init_std=0.02),
    "qwen3-4b": dict(config=dict(vocab_size=151936, hidden_size=2560, intermediate_size=9728, num_hidden_layers=36,
                                 num_attention_heads=32, num_key_value_heads=8, head_dim=128, tie_word_embeddings=True,
                                 bos_token_id=151643, eos_token_id=151645),
                     rank=32, alpha=64, init_std=0.02),
}


def weights_for(seq):
    # A fixed, non-uniform per-target weight (the engine's "mask"): 0, 0.5, 1, 1.5, 0, ...
    return [0.5 * (t % 4) for t in range(len(seq) - 1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shape", default="tiny", choices=sorted(SHAPES), help="model shape (default tiny)")
    ap.add_argument("--tokens", type=int, default=64, help="length of the first random sequence for the qwen3-* shapes")
    ap.add_argument("--device", default="cpu", help="where the float64 reference runs (cpu, cuda)")
    args = ap.parse_args()
    if args.tokens < 4:
        ap.error("--tokens must be at least 4")
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    shape = SHAPES[args.shape]
    rank, alpha, init_std = shape["rank"], shape["alpha"], shape["init_std"]
    if args.shape == "tiny":
        sequences = SEQUENCES
    else:
        # Two random sequences of different lengths (run separately: no padding), from a seeded draw.
        rnd = random.Random(args.seed)
        vocab = shape["config"]["vocab_size"]
        sequences = [[rnd.randrange(vocab) for _ in range(n)] for n in (args.tokens, max(4, (3 * args.tokens) // 4))]

    kw = dict(shape["config"])
    kw.update(rms_norm_eps=1e-6, max_position_embeddings=max(256, args.tokens + 8), attention_bias=False, hidden_act="silu")
    if int(transformers.__version__.split(".")[0]) >= 5:
        kw["rope_parameters"] = {"rope_type": "default", "rope_theta": 1_000_000.0}
    else:
        kw["rope_theta"] = 1_000_000.0
    cfg = Qwen3Config(**kw)
    model = Qwen3ForCausalLM(cfg).to(torch.float32).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.uniform_(0.8, 1.2)  # not 1, so the norm weights are exercised
            else:
                p.normal_(0.0, init_std)  # tiny: larger than initializer_range so logits are far from uniform
    # safetensors (the only format in transformers 5); 2 GB shards stay under Node's 4 GiB buffer limit
    model.save_pretrained(os.path.join(args.out, "model"), max_shard_size="2GB")

    lcfg = LoraConfig(r=rank, lora_alpha=alpha, target_modules=TARGETS, lora_dropout=0.0, bias="none", task_type="CAUSAL_LM")
    pm = get_peft_model(model, lcfg)
    with torch.no_grad():
        for name, p in pm.named_parameters():
            if "lora_B" in name:
                p.normal_(0.0, 0.1)
    pm.save_pretrained(os.path.join(args.out, "adapter"))

    pm = pm.to(args.device).double()
    ref = {}
    with torch.no_grad():
        with pm.disable_adapter():
            for i, seq in enumerate(sequences):
                ref[f"base_logits.{i}"] = pm(input_ids=torch.tensor([seq], device=args.device)).logits[0].float().cpu().contiguous()
        for i, seq in enumerate(sequences):
            ref[f"lora_logits.{i}"] = pm(input_ids=torch.tensor([seq], device=args.device)).logits[0].float().cpu().contiguous()

    loss = torch.zeros((), dtype=torch.float64, device=args.device)
    for seq in sequences:
        logits = pm(input_ids=torch.tensor([seq[:-1]], device=args.device)).logits[0]
        logp = torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(seq[1:], device=args.device).unsqueeze(1)).squeeze(1)
        loss = loss - (torch.tensor(weights_for(seq), dtype=torch.float64, device=args.device) * logp).sum()
    loss.backward()
    n_grads = 0
    for name, p in pm.named_parameters():
        if p.grad is not None:
            ref["grad." + name.replace(".default", "")] = p.grad.float().cpu().contiguous()
            n_grads += 1
    save_file(ref, os.path.join(args.out, "reference.safetensors"))
    meta = {
        "sequences": sequences,
        "weights": [weights_for(s) for s in sequences],
        "loss": loss.item(),
        "shape": args.shape,
        "reference_dtype": "float64",
        "lora_tensors_with_grad": n_grads,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__},
    }
    with open(os.path.join(args.out, "inputs.json"), "w") as f:
        json.dump(meta, f, indent=2)
    print(json.dumps({"out": args.out, "loss": meta["loss"], "grads": n_grads, **meta["versions"]}))


if __name__ == "__main__":
    main()
