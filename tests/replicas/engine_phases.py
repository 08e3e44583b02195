#!/usr/bin/env python3
# tests/replicas/engine_phases.py: the trainers' step/checkpoint arithmetic of three outside RL engines, written from
# their code (Python 3 standard library only), to check a staged (--curriculum) export without a GPU: phase 1 writes
# what phase 2 loads, and every phase trains > 0 steps as the engine itself counts them. No model is trained: a
# "checkpoint" is a marker folder created where the engine would write one. The engines' base configs are embedded
# (a key the launch line does not set takes the engine's own default, as Hydra/OmegaConf would). Versions read:
#
# Search-R1 a14dc3a (its own verl fork; verl/trainer/ppo/ray_trainer.py = RT, verl/trainer/config/ppo_trainer.yaml = Y)
#   Y:12,13      data.train_batch_size 1024, data.val_batch_size 1312
#   Y:21         actor_rollout_ref.model.path ~/models/deepseek-llm-7b-chat
#   Y:36,37      actor_rollout_ref.actor.use_kl_loss False, kl_loss_coef 0.001
#   Y:90,91      actor_rollout_ref.rollout.n 1, n_agent 1 (n_agent is the GRPO group: RT:702 batch.repeat(n_agent))
#   Y:155,160    algorithm.adv_estimator gae, kl_ctrl.kl_coef 0.001
#   Y:166,167    trainer.total_epochs 30, trainer.total_training_steps null
#   Y:173,177    trainer.save_freq -1, trainer.default_local_dir checkpoints/${project_name}/${experiment_name}
#   RT:389-393   train DataLoader(batch_size=train_batch_size, drop_last=True); RT:409-414 val, drop_last=True
#   RT:419-420   assert len(train_dataloader) >= 1; assert len(val_dataloader) >= 1
#   RT:423-428   total_training_steps = len(train_dataloader) * total_epochs, replaced by trainer.total_training_steps
#   RT:662,673   global_steps = 0, then += 1 before the loop (starts at 1); no resume anywhere in fit()
#   RT:695-696   for epoch in range(total_epochs): for batch in train_dataloader
#   RT:831-834   save when save_freq > 0 and global_steps % save_freq == 0 (no last-step save)
#   RT:843-852   global_steps += 1; if global_steps >= total_training_steps: return   (so T steps set -> T-1 trained)
#   RT:623-632   actor -> default_local_dir/actor/global_step_{g}; critic (gae only) -> default_local_dir/critic/...
#   verl/workers/fsdp_workers.py:523-527 the actor folder is save_pretrained + tokenizer (HF; loadable as model.path)
# verl b178a3c (verl/trainer/ppo/ray_trainer.py = RT, verl/trainer/config/ppo_trainer.yaml = Y)
#   Y:81,87,102  algorithm.adv_estimator gae, use_kl_in_reward False, kl_ctrl.kl_coef 0.001
#   Y:129,132    trainer.total_epochs 30, total_training_steps null; Y:159 save_freq -1
#   Y:172,175    trainer.resume_mode auto, resume_from_path null; Y:196 default_local_dir checkpoints/${..}/${..}
#   verl/trainer/config/rollout/rollout.yaml:108 n 1; :163 multi_turn.max_assistant_turns null;
#     :175 max_tool_response_length 256; :178 tool_response_truncate_side middle
#   verl/trainer/config/actor/actor.yaml:95,105 use_kl_loss false, kl_loss_coef 0.001
#   verl/trainer/config/model/hf_model.yaml:10 model.path ~/models/deepseek-llm-7b-chat
#   examples/sglang_multiturn/config/search_multiturn_grpo.yaml:10-12,22 max_prompt_length 1024,
#     max_response_length 1024, train_batch_size 256, multi_turn.max_assistant_turns 2
#   RT:348-354   train StatefulDataLoader(batch_size=gen_batch_size or train_batch_size, drop_last=True)
#   RT:360-367   val: batch = val_batch_size or len(val), drop_last=False
#   RT:370-371   assert len(train_dataloader) >= 1, "Train dataloader is empty!" (and the validation one)
#   RT:378-383   total_training_steps = len(train_dataloader) * total_epochs, replaced by trainer.total_training_steps
#   RT:997-1052  _load_checkpoint: disable -> 0; auto -> latest in default_local_dir (latest_checkpointed_iteration.txt)
#                or scratch; resume_path -> assert "global_step_" in path, global_steps = int(after "global_step_"),
#                load {path}/actor (missing -> the FSDP checkpoint manager's torch.load fails), restore
#                {path}/data.pt into THIS run's train dataloader when it exists
#   RT:1326      current_epoch = global_steps // len(train_dataloader)
#   RT:1346,1358 global_steps += 1; for epoch in range(current_epoch, total_epochs): for batch in train_dataloader
#   RT:1387      is_last_step = global_steps >= total_training_steps
#   RT:1645-1646 save when save_freq > 0 and (is_last_step or global_steps % save_freq == 0)  (last step saves)
#   RT:928-995   default_local_dir/global_step_{g}/actor, .../data.pt, default_local_dir/latest_checkpointed_iteration.txt
#   RT:1700-1715 global_steps += 1; if is_last_step: return
#   data.pt restore (torchdata StatefulDataLoader): MODELLED, not copied -- the sampler fast-forwards past the samples
#   phase 1 drew in its last epoch, so phase 2's first epoch yields len - min(len, drawn // batch) batches.
# AReaL/ASearcher 813e804 (AReaL 0.3.4; AReaL/ASearcher/train/asearcher.py = AS, AReaL/ASearcher/configs/
#   asearcher_local.yaml = Y, AReaL/areal/api/cli_args.py = CA)
#   Y:1,2,5      experiment_name asearcher-7b-zero-local, trial_name run1, cluster.fileroot /tmp/areal/experiments
#   Y:12,13      total_train_epochs 10, total_train_steps null -- CA:746-752 "for benchmarking purposes only": AS never
#                reads it (AS:390-392 max_steps = total_train_epochs * len(train_dataloader))
#   Y:14,15      tokenizer_path ${actor.path}; allocation_mode sglang.d4p1t1+d4p1t1 (trainer world size 4)
#   Y:28,37,56,62 gconfig.n_samples 16, actor.path Qwen/Qwen2.5-7B, actor.group_size ${gconfig.n_samples}, kl_ctl 0.0
#   Y:108        train_dataset.batch_size 128; CA:649 drop_last True; Y:118-120 saver freq_epochs 1, freq_steps 10,
#                freq_secs 3600 (time not simulated); Y:154 n_trajs 16 (AS:180 n_trajs trajectories per question)
#   AS:328-336   per-rank StatefulDataLoader(batch_size=batch_size // world_size, drop_last) over the rank's shard
#                (AS:314 datasets.split_dataset_by_node: contiguous shards, the first len % ws one row longer)
#   AS:337-341   FinetuneSpec(dataset_size=len(dl) * batch_size) -> steps_per_epoch = len(dl) (areal/api/io_struct.py:76-78)
#   AS:396-399   start = recover_start_step or 0 (CA:828 default 0); for global_step in range(start, max_steps);
#                epoch = global_step // steps_per_epoch; step = global_step % steps_per_epoch
#   AS:460       saver.save(actor, epoch, step, global_step)  -- no tokenizer passed
#   areal/utils/saver.py:62-65 save when EpochStepTimeFreqCtl.check(epochs=int(step == steps_per_epoch - 1), steps=1)
#   realhf/base/timeutil.py:85-120,137-143 a FrequencyControl fires when its counter advanced >= its frequency; any fires
#   areal/utils/saver.py:29-49 {fileroot}/checkpoints/{user}/{experiment_name}/{trial_name}/default/
#                epoch{epoch}epochstep{step}globalstep{global_step}; :69 weight_format "hf"
#   areal/engine/fsdp_engine.py:123-124 the tokenizer is saved only when passed (it is not: AS:460)
#   areal/engine/base_hf_engine.py:129 load_hf_tokenizer(actor.path): a phase-2 actor.path needs a tokenizer
#   AS:350       ref = None: no reference model, so no KL term whatever kl_ctl says
#
# What the stub does besides the arithmetic, as the engines do before and after they train:
#   - refuses an override as the engine's Hydra does in struct mode (engine_keys.py: the committed key lists of each
#     base config; STUB_NO_KEY_CHECK=1 turns it off so that a later failure can be shown on its own);
#   - opens the config files the engine opens (config_files): AReaL's --config (areal/api/cli_args.py:842-843) and
#     training script; verl's primary config and its defaults through hydra.searchpath, a relative file:// entry
#     resolved against the folder it runs in (examples/sglang_multiturn/config/search_multiturn_grpo.yaml:1-7);
#   - AReaL 0.3.4's `areal.launcher.local` exits 1 once a trainer has run, finished or not (areal_launcher_exit:
#     areal/launcher/local.py:33-37,173-300);
#   - STUB_CRASH=K:N: the K-th trainer call under $CKPT dies after N steps, its saves left on disk (a rerun's test).
#
# Usage:
#   engine_phases.py simulate LAUNCH.sh [--data DIR] [--ckpt DIR] [--env K=V ...] [--arg KEY=VALUE ...]
#     -> JSON summary (per phase: steps trained, checkpoints written, path loaded; problems), exit 1 on any problem.
#     --env sets the script's environment (WORLD, MODEL, STAGE1_MODEL...); --arg is what "$@" passes to every phase.
#   engine_phases.py stub ARGV...   (what tests/replicas/stub-bin/python3 runs: one phase for real, markers on disk)
import getpass
import json
import os
import re
import shlex
import struct
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_keys  # noqa: E402

# ----------------------------------------------------------------------------------------------------------------
# Row counts of the exported files (parquet footer num_rows; JSONL lines)


def _varint(b, i):
    shift = 0
    out = 0
    while True:
        c = b[i]
        i += 1
        out |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return out, i


def _zigzag(n):
    return (n >> 1) ^ -(n & 1)


def _skip(b, i, t):
    # Thrift compact protocol value of type t starting at i; returns the index after it.
    if t in (1, 2):
        return i
    if t == 3:
        return i + 1
    if t in (4, 5, 6):
        _, i = _varint(b, i)
        return i
    if t == 7:
        return i + 8
    if t == 8:
        n, i = _varint(b, i)
        return i + n
    if t in (9, 10):
        h = b[i]
        i += 1
        n = h >> 4
        et = h & 0x0F
        if n == 15:
            n, i = _varint(b, i)
        for _ in range(n):
            i = i + 1 if et in (1, 2) else _skip(b, i, et)
        return i
    if t == 11:
        n, i = _varint(b, i)
        if n == 0:
            return i
        kv = b[i]
        i += 1
        for _ in range(n):
            i = _skip(b, i, kv >> 4)
            i = _skip(b, i, kv & 0x0F)
        return i
    if t == 12:
        fid = 0
        while True:
            h = b[i]
            i += 1
            if h == 0:
                return i
            d = h >> 4
            if d == 0:
                v, i = _varint(b, i)
                fid = _zigzag(v)
            else:
                fid += d
            i = _skip(b, i, h & 0x0F)
    raise ValueError(f"thrift type {t}")


def parquet_rows(path):
    with open(path, "rb") as f:
        f.seek(-8, 2)
        n, magic = struct.unpack("<I4s", f.read(8))
        if magic != b"PAR1":
            raise ValueError(f"{path}: not parquet")
        f.seek(-8 - n, 2)
        b = f.read(n)
    # FileMetaData: 1 version i32, 2 schema list, 3 num_rows i64
    i = 0
    fid = 0
    while True:
        h = b[i]
        i += 1
        if h == 0:
            raise ValueError(f"{path}: no num_rows")
        d = h >> 4
        if d == 0:
            v, i = _varint(b, i)
            fid = _zigzag(v)
        else:
            fid += d
        if fid == 3 and (h & 0x0F) == 6:
            v, _ = _varint(b, i)
            return _zigzag(v)
        i = _skip(b, i, h & 0x0F)


def file_rows(path):
    if path.endswith(".parquet"):
        return parquet_rows(path)
    with open(path, "rb") as f:
        return sum(1 for line in f if line.strip())


def hydra_list(v):
    """data.train_files: a path or a Hydra list "['a','b']"."""
    v = v.strip()
    if v.startswith("[") and v.endswith("]"):
        return [x.strip().strip("'\"") for x in v[1:-1].split(",") if x.strip()]
    return [v]


# ----------------------------------------------------------------------------------------------------------------
# Launch scripts: the `python3 -m ...` lines with the shell's variable expansion


class Missing(Exception):
    pass


def expand(word, env, strict=True):
    def rep(m):
        name = m.group(1) or m.group(2)
        op, arg = m.group(3), m.group(4)
        val = env.get(name)
        if op == ":-":
            return val if val else expand(arg or "", env, strict)
        if op == ":+":
            return expand(arg or "", env, strict) if val else ""
        if op == ":?":
            if not val:
                raise Missing(f"{name}: {arg}")
            return val
        if val is None:
            if not strict:
                return m.group(0)
            raise Missing(f"{name}: unbound variable (set -u)")
        return val

    return re.sub(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:[-?+])([^}]*))?\})", lambda m: rep(m) if m.group(1) or m.group(2) else m.group(0), word)


def script_lines(text):
    out = []
    cur = ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        out.append(cur + line)
        cur = ""
    return out


def launch_commands(text, env, extra_args=(), strict=True):
    """Each `python3 -m MODULE ...` line as argv (after `python3`), in order; plain VAR=... assignments update env and
    NAME=(...) arrays (one word a line, `# comments` allowed, or on one line) are expanded where "${NAME[@]}" stands
    (strict=False, for reading the keys only: a variable the text never sets stays `$NAME`, and an array assigned more
    than once, as in the branches of an if, expands to every word any assignment gave it). A command ends at ||, &&, ;."""
    env = dict(env)
    arrays = {}
    cmds = []
    lines = script_lines(text)
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        i += 1
        a = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=\((.*)$", s)
        if a:
            body = a.group(2).strip()
            if body.endswith(")"):  # NAME=(a b) on one line
                body = body[:-1]
            else:  # one word a line up to a line that is only ")"
                while lines[i].strip() != ")":
                    body += "\n" + lines[i]
                    i += 1
                i += 1
            words = [expand(w, env, strict) for ln in body.split("\n") for w in shlex.split(ln, comments=True)]
            if strict or a.group(1) not in arrays:
                arrays[a.group(1)] = words
            else:
                arrays[a.group(1)] += [w for w in words if w not in arrays[a.group(1)]]
            continue
        m = re.match(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$", s)
        if m:
            rhs = m.group(2).strip()
            if len(rhs) >= 2 and rhs[0] == rhs[-1] and rhs[0] in "'\"":
                rhs = rhs[1:-1]
            if not strict and ("$(" in rhs or "`" in rhs):
                continue  # a command's output: the variable keeps the value the caller gave it
            env[m.group(1)] = expand(rhs, env, strict)
            continue
        if s.startswith("python3 -m "):
            words = shlex.split(s.replace('"$@"', "__ALL_ARGS__"))[1:]
            words = ['"$@"' if w == "__ALL_ARGS__" else w for w in words]
            argv = []
            for w in words:
                if w in ("||", "&&", ";", "|"):
                    break
                if w == '"$@"' or w == "$@":
                    argv.extend(extra_args)
                    continue
                arr = re.fullmatch(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\}", w)
                if arr:
                    argv.extend(arrays.get(arr.group(1), []))
                    continue
                argv.append(expand(w, env, strict))
            cmds.append(argv)
    return cmds, env


def overrides(argv):
    ov = {}
    for a in argv:
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            ov["--" + k] = v
        elif "=" in a and not a.startswith("-"):
            k, v = a.split("=", 1)
            ov[k.lstrip("+")] = v
    return ov


def engine_of(argv, ov):
    if argv[:2] == ["-m", "areal.launcher.local"]:
        return "asearcher"
    if argv[:2] == ["-m", "verl.trainer.main_ppo"]:
        return "verl" if "--config-name" in ov else "search-r1"
    return None


# ----------------------------------------------------------------------------------------------------------------
# The engines' base configs (only the keys this replica reads), cited in the header

SEARCH_R1_BASE = {
    "data.train_batch_size": "1024", "data.val_batch_size": "1312",
    "actor_rollout_ref.model.path": "~/models/deepseek-llm-7b-chat",
    "actor_rollout_ref.actor.use_kl_loss": "False", "actor_rollout_ref.actor.kl_loss_coef": "0.001",
    "actor_rollout_ref.rollout.n": "1", "actor_rollout_ref.rollout.n_agent": "1",
    "algorithm.adv_estimator": "gae", "algorithm.kl_ctrl.kl_coef": "0.001",
    "trainer.total_epochs": "30", "trainer.total_training_steps": "null", "trainer.save_freq": "-1",
    "trainer.project_name": "verl_examples", "trainer.experiment_name": "gsm8k",
    "trainer.default_local_dir": "checkpoints/${trainer.project_name}/${trainer.experiment_name}",
    "max_turns": "10",
}
VERL_BASE = {
    "data.train_batch_size": "256", "data.val_batch_size": "null", "data.gen_batch_size": "null",
    "data.max_prompt_length": "1024", "data.max_response_length": "1024",
    "actor_rollout_ref.model.path": "~/models/deepseek-llm-7b-chat",
    "actor_rollout_ref.actor.use_kl_loss": "false", "actor_rollout_ref.actor.kl_loss_coef": "0.001",
    "actor_rollout_ref.rollout.n": "1",
    "actor_rollout_ref.rollout.multi_turn.max_assistant_turns": "2",
    "actor_rollout_ref.rollout.multi_turn.max_tool_response_length": "256",
    "actor_rollout_ref.rollout.multi_turn.tool_response_truncate_side": "middle",
    "algorithm.adv_estimator": "gae", "algorithm.use_kl_in_reward": "False", "algorithm.kl_ctrl.kl_coef": "0.001",
    "trainer.total_epochs": "30", "trainer.total_training_steps": "null", "trainer.save_freq": "-1",
    "trainer.resume_mode": "auto", "trainer.resume_from_path": "null",
    "trainer.project_name": "verl_examples", "trainer.experiment_name": "gsm8k",
    "trainer.default_local_dir": "checkpoints/${trainer.project_name}/${trainer.experiment_name}",
}
ASEARCHER_BASE = {
    "experiment_name": "asearcher-7b-zero-local", "trial_name": "run1", "cluster.fileroot": "/tmp/areal/experiments",
    "total_train_epochs": "10", "total_train_steps": "null", "tokenizer_path": "${actor.path}",
    "allocation_mode": "sglang.d4p1t1+d4p1t1", "gconfig.n_samples": "16", "actor.path": "Qwen/Qwen2.5-7B",
    "actor.group_size": "${gconfig.n_samples}", "actor.kl_ctl": "0.0", "train_dataset.batch_size": "128",
    "train_dataset.drop_last": "True", "saver.freq_epochs": "1", "saver.freq_steps": "10", "recover_start_step": "0",
    "n_trajs": "16", "train_dataset.path": "path_to_training_data",
}

# Keys a GRPO launch must set itself (else the base config above decides, silently): our contract, not the engine's.
GRPO_KEYS = {
    "search-r1": ["actor_rollout_ref.model.path", "algorithm.adv_estimator", "actor_rollout_ref.rollout.n_agent",
                  "actor_rollout_ref.actor.use_kl_loss", "actor_rollout_ref.actor.kl_loss_coef"],
    "verl": ["actor_rollout_ref.model.path", "algorithm.adv_estimator", "actor_rollout_ref.rollout.n",
             "actor_rollout_ref.actor.use_kl_loss", "actor_rollout_ref.actor.kl_loss_coef",
             "algorithm.use_kl_in_reward"],
    "asearcher": ["actor.path", "n_trajs", "actor.group_size", "actor.kl_ctl"],
}
VERL_LIMIT_KEYS = ["actor_rollout_ref.rollout.multi_turn.max_assistant_turns",
                   "actor_rollout_ref.rollout.multi_turn.max_tool_response_length", "data.max_response_length"]


def resolve(base, ov):
    cfg = dict(base)
    cfg.update(ov)
    for _ in range(4):
        for k, v in cfg.items():
            cfg[k] = re.sub(r"\$\{([^}]+)\}", lambda m: cfg.get(m.group(1), m.group(0)), v)
    return cfg


def num(v):
    return None if v in (None, "null", "None", "~") else int(float(v))


def truthy(v):
    return str(v).lower() in ("true", "1")


def abspath(p, cwd):
    p = os.path.expanduser(p)
    return p if os.path.isabs(p) else os.path.join(cwd, p)


class Refused(Exception):
    def __init__(self, msg, info=None):
        super().__init__(msg)
        self.info = info or {}


class Crashed(Refused):
    """The trainer died mid-run (STUB_CRASH): what it saved before stays on disk."""


def tick(state, trained, info):
    """After each trained step: die here when this call is the one STUB_CRASH names and it has trained its steps."""
    after = state.get("crash_after")
    if after is not None and trained >= after:
        raise Crashed(f"the trainer died after {trained} steps (STUB_CRASH)", dict(info, steps_trained=trained))


def place(p, state):
    """Where a path the engine would write outside $CKPT lands in this replica (under $CKPT/_outside/...)."""
    root = state.get("ckpt_root")
    if not root or not state.get("reroot") or p.startswith(root):
        return p
    return os.path.join(root, "_outside", p.lstrip("/"))


def mark(path, files=("MARKER",)):
    os.makedirs(path, exist_ok=True)
    for f in files:
        with open(os.path.join(path, f), "w") as fh:
            fh.write("written by tests/replicas/engine_phases.py\n")


def rows_of(paths, cwd):
    total = 0
    for p in paths:
        q = abspath(p, cwd)
        if not os.path.exists(q):
            raise Refused(f"data file not found: {q}")
        total += file_rows(q)
    return total


def contract(engine, ov, phase_index):
    out = [f"{k} not set (engine default {resolve(BASES[engine], {}).get(k)})" for k in GRPO_KEYS[engine] if k not in ov]
    if engine == "search-r1" and ov.get("algorithm.adv_estimator", "gae") != "grpo":
        out.append("algorithm.adv_estimator is not grpo")
    if engine == "verl" and ov.get("algorithm.adv_estimator", "gae") != "grpo":
        out.append("algorithm.adv_estimator is not grpo")
    if engine == "verl":
        out += [f"limit {k} not set (engine default {VERL_BASE[k]})" for k in VERL_LIMIT_KEYS if k not in ov]
    if engine == "asearcher" and "actor.group_size" in ov and ov.get("actor.group_size") != ov.get("n_trajs", "16"):
        out.append("actor.group_size != n_trajs (groups would straddle questions)")
    return out


# ---------------------------------------------------------------------------------------------------------------- engines


def search_r1(ov, cwd, state):
    cfg = resolve(SEARCH_R1_BASE, ov)
    rows = rows_of(hydra_list(ov.get("data.train_files", "~/data/rlhf/gsm8k/train.parquet")), cwd)
    vrows = rows_of(hydra_list(ov.get("data.val_files", "~/data/rlhf/gsm8k/test.parquet")), cwd)
    bs, vbs = num(cfg["data.train_batch_size"]), num(cfg["data.val_batch_size"])
    n_train, n_val = rows // bs, vrows // vbs  # RT:389-414 drop_last=True
    info = {"rows": rows, "train_batch_size": bs, "len_train_dataloader": n_train, "val_rows": vrows,
            "val_batch_size": vbs}
    if n_train < 1:
        raise Refused(f"AssertionError: len(train_dataloader) >= 1 ({rows} rows // train_batch_size {bs}; RT:419)")
    if n_val < 1:
        raise Refused(f"AssertionError: len(val_dataloader) >= 1 ({vrows} rows // val_batch_size {vbs}; RT:420)")
    raw = abspath(cfg["actor_rollout_ref.model.path"], cwd)
    model = place(raw, state)
    loaded = None
    if state["ckpt_root"] and raw.startswith(state["ckpt_root"]):
        if not os.path.isdir(model) or model not in state["written"]:
            raise Refused(f"actor_rollout_ref.model.path {model} does not exist (never written by an earlier phase)")
        loaded = model
    total = num(cfg["trainer.total_training_steps"])
    epochs = num(cfg["trainer.total_epochs"])
    if total is None:
        total = n_train * epochs  # RT:423
    save_freq = num(cfg["trainer.save_freq"])
    out_dir = place(abspath(cfg["trainer.default_local_dir"], cwd), state)
    g = 1  # RT:673
    trained, saved = 0, []
    for _ in range(epochs):  # RT:695
        done = False
        for _ in range(n_train):
            trained += 1
            if save_freq > 0 and g % save_freq == 0:  # RT:831
                p = os.path.join(out_dir, "actor", f"global_step_{g}")  # RT:624
                mark(p, ("config.json", "model.safetensors", "tokenizer_config.json"))  # fsdp_workers.py:526-527
                saved.append(p)
                if cfg["algorithm.adv_estimator"] == "gae":
                    p2 = os.path.join(out_dir, "critic", f"global_step_{g}")
                    mark(p2)
                    saved.append(p2)
            g += 1  # RT:843
            tick(state, trained, dict(info, checkpoints_written=saved, loaded=loaded))
            if g >= total:  # RT:845
                done = True
                break
        if done:
            break
    info.update({"total_training_steps": total, "steps_trained": trained, "last_global_step": g - 1,
                 "checkpoints_written": saved, "loaded": loaded})
    return info


def verl(ov, cwd, state):
    cfg = resolve(VERL_BASE, ov)
    rows = rows_of(hydra_list(ov.get("data.train_files", "~/data/rlhf/gsm8k/train.parquet")), cwd)
    vrows = rows_of(hydra_list(ov.get("data.val_files", "~/data/rlhf/gsm8k/test.parquet")), cwd)
    bs = num(cfg["data.gen_batch_size"]) or num(cfg["data.train_batch_size"])
    n_train = rows // bs  # RT:348-354 drop_last=True
    info = {"rows": rows, "train_batch_size": bs, "len_train_dataloader": n_train, "val_rows": vrows}
    if n_train < 1:
        raise Refused(f'AssertionError: Train dataloader is empty! ({rows} rows // train_batch_size {bs}; RT:370)')
    total = num(cfg["trainer.total_training_steps"])
    epochs = num(cfg["trainer.total_epochs"])
    if total is None:
        total = n_train * epochs  # RT:378
    out_dir = place(abspath(cfg["trainer.default_local_dir"], cwd), state)
    mode = cfg["trainer.resume_mode"]
    g, loaded, skip = 0, None, 0
    if mode != "disable":  # RT:997-1052
        folder = None
        if mode == "auto":
            latest = os.path.join(out_dir, "latest_checkpointed_iteration.txt")
            if os.path.exists(latest):
                folder = os.path.join(out_dir, "global_step_" + open(latest).read().strip())
        elif mode == "resume_path":
            rp = cfg["trainer.resume_from_path"]
            if rp in (None, "null") or "global_step_" not in rp:
                raise Refused("AssertionError: resume ckpt must specify the global_steps (RT:1019)")
            folder = place(abspath(rp, cwd), state)
        if folder is not None:
            if not os.path.isdir(os.path.join(folder, "actor")):
                raise Refused(f"FileNotFoundError: {folder}/actor (resume checkpoint never written)")
            g = int(folder.split("global_step_")[-1])  # RT:1028
            loaded = folder
            dp = os.path.join(folder, "data.pt")
            if os.path.exists(dp):  # RT:1047-1050
                drawn = json.load(open(dp))["samples_drawn_in_epoch"]
                skip = min(n_train, drawn // bs)
                info["dataloader_state_restored"] = {"from": dp, "batches_skipped_in_first_epoch": skip}
    current_epoch = g // n_train  # RT:1326
    save_freq = num(cfg["trainer.save_freq"])
    g += 1  # RT:1346
    trained, saved = 0, []
    drawn = 0
    done = False
    for epoch in range(current_epoch, epochs):  # RT:1358
        first = epoch == current_epoch
        drawn = 0
        for _ in range(n_train - (skip if first else 0)):
            is_last = g >= total  # RT:1387
            trained += 1
            drawn += bs
            if save_freq > 0 and (is_last or g % save_freq == 0):  # RT:1645
                p = os.path.join(out_dir, f"global_step_{g}")  # RT:932
                mark(os.path.join(p, "actor"))
                with open(os.path.join(p, "data.pt"), "w") as fh:  # RT:977-979 (a JSON stand-in)
                    json.dump({"samples_drawn_in_epoch": drawn + ((skip * bs) if first else 0)}, fh)
                with open(os.path.join(out_dir, "latest_checkpointed_iteration.txt"), "w") as fh:  # RT:991-995
                    fh.write(str(g))
                saved.append(p)
            g += 1  # RT:1700
            tick(state, trained, dict(info, checkpoints_written=saved, loaded=loaded))
            if is_last:  # RT:1710
                done = True
                break
        if done:
            break
    info.update({"total_training_steps": total, "start_epoch": current_epoch, "total_epochs": epochs,
                 "steps_trained": trained, "last_global_step": g - 1, "checkpoints_written": saved,
                 "loaded": loaded})
    return info


def asearcher(ov, cwd, state):
    cfg = resolve(ASEARCHER_BASE, ov)
    rows = rows_of([cfg["train_dataset.path"]], cwd)
    m = re.search(r"\+d(\d+)p(\d+)t(\d+)", cfg["allocation_mode"])
    ws = int(m.group(1)) * int(m.group(2)) * int(m.group(3)) if m else 1
    bs = num(cfg["train_dataset.batch_size"])
    shard = rows // ws  # the smallest rank's shard (AS:314)
    per_rank_bs = bs // ws  # AS:331
    n = shard // per_rank_bs if truthy(cfg["train_dataset.drop_last"]) else -(-shard // per_rank_bs)
    epochs = num(cfg["total_train_epochs"])
    max_steps = epochs * n  # AS:390-392
    start = num(cfg["recover_start_step"]) or 0  # AS:396
    info = {"rows": rows, "world_size": ws, "batch_size": bs, "steps_per_epoch": n, "total_train_epochs": epochs,
            "max_steps": max_steps, "recover_start_step": start,
            "total_train_steps_ignored": cfg["total_train_steps"] if cfg["total_train_steps"] != "null" else None}
    actor = cfg["actor.path"]
    loaded = None
    user = getpass.getuser()  # saver.py:30
    fileroot = place(abspath(cfg["cluster.fileroot"], cwd), state)
    raw = abspath(actor, cwd) if (os.path.isabs(actor) or actor.startswith(".")) else None
    a = place(raw, state) if raw else None
    if a and ((state["ckpt_root"] and raw.startswith(state["ckpt_root"])) or a.startswith(fileroot)):
        if not os.path.isdir(a) or a not in state["written"]:
            raise Refused(f"actor.path {a} does not exist / was not written by an earlier phase",
                          dict(info, steps_trained=max(0, max_steps - start)))
        if not any(os.path.exists(os.path.join(a, f)) for f in ("tokenizer_config.json", "tokenizer.json")):
            raise Refused(f"load_hf_tokenizer({a}) fails: the saver wrote no tokenizer there (AS:460, "
                          "fsdp_engine.py:123-124; base_hf_engine.py:129)", dict(info, steps_trained=max(0, max_steps - start)))
        loaded = a
    root = os.path.join(fileroot, "checkpoints", user, cfg["experiment_name"],
                        cfg["trial_name"], "default")  # saver.py:29-34
    fe, fs = num(cfg["saver.freq_epochs"]), num(cfg["saver.freq_steps"])
    ce = cs = 0
    trained, saved = 0, []
    for gs in range(start, max_steps):  # AS:397
        epoch, step = gs // n, gs % n
        trained += 1
        ce += int(step == n - 1)  # saver.py:62-63
        cs += 1
        fire = False
        if fe is not None and ce >= fe:
            fire, ce = True, 0
        if fs is not None and cs >= fs:
            fire, cs = True, 0
        if fire:  # timeutil.py:137-143 (each control resets when it fires; time control not simulated)
            p = os.path.join(root, f"epoch{epoch}epochstep{step}globalstep{gs}")  # saver.py:44-47
            mark(p, ("config.json", "model.safetensors"))  # hf weights, no tokenizer
            saved.append(p)
        tick(state, trained, dict(info, checkpoints_written=saved, loaded=loaded, saver_root=root))
    info.update({"steps_trained": trained, "checkpoints_written": saved, "loaded": loaded, "saver_root": root})
    return info


ENGINES = {"search-r1": search_r1, "verl": verl, "asearcher": asearcher}
BASES = {"search-r1": SEARCH_R1_BASE, "verl": VERL_BASE, "asearcher": ASEARCHER_BASE}


def run_phase(argv, cwd, state):
    ov = overrides(argv)
    eng = engine_of(argv, ov)
    res = {"engine": eng, "overrides": ov}
    if eng is None:
        res["refused"] = f"unknown module {argv[:2]}"
        return res
    res["contract_violations"] = contract(eng, ov, len(state["phases"]))
    try:
        config_files(eng, argv, ov, cwd)
        # STUB_NO_KEY_CHECK=1: off, so that a test can show a failure that comes after the config parse on its own.
        struct = engine_keys.problems_of(eng, argv[2:]) if os.environ.get("STUB_NO_KEY_CHECK") != "1" else []
        if struct:  # Hydra stops at the first one
            raise Refused(f"hydra: {struct[0]}")
        res.update(ENGINES[eng](ov, cwd, state))
        state["written"].update(res["checkpoints_written"])
    except Refused as e:
        res.update(e.info)
        res["refused"] = str(e)
        if isinstance(e, Crashed):
            res["crashed"] = True
            state["written"].update(res.get("checkpoints_written", []))
    return res


def _yaml_list(text, *path):
    """The `- item` entries of the list at `path` in a small block-style YAML file (the two the stub reads)."""
    lines, depth, out = text.splitlines(), 0, []
    want = list(path)
    indent = -1
    for ln in lines:
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        ind = len(ln) - len(ln.lstrip())
        if depth < len(want):
            if ind > indent and ln.strip() == f"{want[depth]}:":
                depth, indent = depth + 1, ind
            continue
        if ind <= indent:
            break
        if ln.strip().startswith("- "):
            out.append(ln.strip()[2:].strip().strip("'\""))
    return out


def config_files(eng, argv, ov, cwd):
    """The config files the engine opens before it trains: AReaL's --config (areal/api/cli_args.py:842-843 assert
    config_file.exists()) and the training script torchrun runs; verl's primary config (--config-path/--config-name)
    and each entry of its defaults list, looked up in the primary folder and in hydra.searchpath — a file:// entry
    relative to the current folder resolves against it (Hydra's FileConfigSource), so the stock
    `file://verl/trainer/config` (search_multiturn_grpo.yaml:1-3) finds ppo_trainer only from verl's root."""
    if eng == "asearcher":
        script = abspath(argv[2], cwd)
        cfg = abspath(argv[argv.index("--config") + 1], cwd) if "--config" in argv else None
        if cfg is None or not os.path.isfile(cfg):
            raise Refused(f"AssertionError: config_file.exists() ({cfg}; areal/api/cli_args.py:843)")
        if not os.path.isfile(script):
            raise Refused(f"torchrun: can't open file '{script}' (ASEARCHER_DIR is not the AReaL folder of an ASearcher checkout)")
    if eng == "verl":
        folder = abspath(ov.get("--config-path", ""), cwd)
        name = ov.get("--config-name", "ppo_trainer")
        primary = os.path.join(folder, name + ".yaml")
        if not os.path.isfile(primary):
            raise Refused(f"hydra MissingConfigException: Cannot find primary config '{name}' in {folder}")
        text = open(primary).read()
        sp = ov.get("hydra.searchpath")
        searchpath = [x.strip().strip("'\"") for x in sp.strip()[1:-1].split(",") if x.strip()] if sp else _yaml_list(text, "hydra", "searchpath")
        dirs = [folder]
        for e in searchpath:
            if e.startswith("file://"):
                dirs.append(abspath(e[len("file://"):], cwd))
            else:
                raise Refused(f"hydra search path {e}: only file:// entries are modelled by this stub")
        for d in _yaml_list(text, "defaults"):
            if d == "_self_" or ":" in d or "@" in d:
                continue
            if not any(os.path.isfile(os.path.join(x, d + ".yaml")) for x in dirs):
                raise Refused(f"hydra MissingConfigException: In '{name}': Could not find '{d}' "
                              f"(search path: {', '.join(dirs)}; run from {cwd})")


def check_chain(state):
    """Every phase ran, trained > 0 steps, and each later phase loaded a path an earlier phase wrote."""
    problems = []
    written = set()
    for i, ph in enumerate(state["phases"]):
        tag = f"phase {i + 1}"
        for v in ph.get("contract_violations", []):
            problems.append(f"{tag}: {v}")
        if ph.get("total_train_steps_ignored"):
            problems.append(f"{tag}: total_train_steps={ph['total_train_steps_ignored']} is never read; the loop runs "
                            f"range({ph['recover_start_step']}, {ph['max_steps']}), max_steps = total_train_epochs "
                            f"{ph['total_train_epochs']} x steps_per_epoch {ph['steps_per_epoch']}")
        if ph.get("refused"):
            problems.append(f"{tag}: engine refuses to start: {ph['refused']}")
            if ph.get("steps_trained") == 0:
                problems.append(f"{tag}: and would train 0 steps ({_why_zero(ph)})")
            continue
        if ph.get("steps_trained", 0) <= 0:
            problems.append(f"{tag}: trains 0 steps ({_why_zero(ph)})")
        if i > 0 and not ph.get("loaded"):
            problems.append(f"{tag}: loads nothing from phase {i} (starts from the base model)")
        if i > 0 and ph.get("loaded") and ph["loaded"] not in written:
            problems.append(f"{tag}: loads {ph['loaded']}, which no earlier phase wrote")
        if i < len(state["phases"]) - 1 and not ph.get("checkpoints_written"):
            problems.append(f"{tag}: writes no checkpoint for phase {i + 2}")
        written.update(ph.get("checkpoints_written", []))
    return problems


def _why_zero(ph):
    if ph["engine"] == "verl":
        return (f"start epoch {ph['start_epoch']} = resumed step // {ph['len_train_dataloader']} batches, "
                f"total_epochs {ph['total_epochs']}, total_training_steps {ph['total_training_steps']}")
    if ph["engine"] == "asearcher":
        return f"range(recover_start_step {ph['recover_start_step']}, max_steps {ph['max_steps']})"
    return f"total_training_steps {ph.get('total_training_steps')}"


def simulate(script, data=None, ckpt=None, env_extra=None, cwd=None, extra_args=()):
    text = open(script).read()
    ckpt = ckpt or tempfile.mkdtemp(prefix="engine-phases-")
    cwd = cwd or ckpt
    env = {"HOME": os.environ.get("HOME", "/root"), "PWD": cwd, "CKPT": ckpt}
    if data:
        env["DATA"] = data
    env.update(env_extra or {})
    state = {"phases": [], "written": set(), "ckpt_root": ckpt, "reroot": True}
    try:
        cmds, _ = launch_commands(text, env, extra_args)
    except Missing as e:
        return {"script": script, "ok": False, "problems": [f"the script stops: {e}"], "phases": []}
    for argv in cmds:
        state["phases"].append(run_phase(argv, cwd, state))
    problems = check_chain(state)
    for ph in state["phases"]:
        ph.pop("overrides", None)
    return {"script": script, "ckpt": ckpt, "ok": not problems, "problems": problems, "phases": state["phases"]}


# ---------------------------------------------------------------------------------------------------------------- stub


def stub(argv):
    """A fake `python3`: records argv (JSONL to $STUB_LOG), probes the gym's /health, runs one phase of the replica
    with markers on disk under the engine's own checkpoint folders, exits 1 where the engine would stop."""
    cwd = os.getcwd()
    rec = {"argv": argv, "cwd": cwd}
    health = os.environ.get("STUB_HEALTH_URL", "http://127.0.0.1:8000/health")
    try:
        with urllib.request.urlopen(health, timeout=2) as r:
            rec["gym_health"] = r.status
    except Exception as e:  # noqa: BLE001
        rec["gym_health"] = f"unreachable: {e}"
    ckpt = os.environ.get("CKPT")
    state_file = os.environ.get("STUB_STATE") or (os.path.join(ckpt, ".stub-state.json") if ckpt else None)
    written, calls = set(), 0
    if state_file and os.path.exists(state_file):
        saved = json.load(open(state_file))
        written, calls = set(saved["written"]), saved["calls"]
    calls += 1
    state = {"phases": [], "written": written, "ckpt_root": os.path.abspath(ckpt) if ckpt else None, "reroot": bool(ckpt)}
    # STUB_CRASH=K:N: the K-th trainer call of this checkpoint folder dies after N steps (what it saved stays).
    crash = os.environ.get("STUB_CRASH", "")
    if crash and int(crash.split(":")[0]) == calls:
        state["crash_after"] = int(crash.split(":")[1])
    rec["call"] = calls
    launcher = None
    if argv[:1] != ["-m"]:
        rec["refused"] = "the stub runs only `python3 -m MODULE ...`"
        code = 1
    else:
        res = run_phase(argv, cwd, state)
        res.pop("overrides", None)
        rec["phase"] = res
        code = 1 if res.get("refused") else 0
        if res.get("contract_violations") and os.environ.get("STUB_LENIENT") != "1":
            res.setdefault("refused", "contract: " + "; ".join(res["contract_violations"]))
            code = 1
        if res.get("engine") == "asearcher":
            launcher = areal_launcher_exit(res, argv)
            code = 1
        if state_file:
            with open(state_file, "w") as fh:
                json.dump({"written": sorted(state["written"]), "calls": calls}, fh)
    rec["exit"] = code
    log = os.environ.get("STUB_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
    if launcher:
        sys.stderr.write(launcher + "\n")
    elif code:
        sys.stderr.write(f"stub trainer: {rec.get('refused') or rec['phase'].get('refused')}\n")
    return code


def areal_launcher_exit(res, argv):
    """What AReaL 0.3.4's `python3 -m areal.launcher.local` prints as it exits 1 — always, once it has started a trainer.
    Its wait polls each job's process status (areal/launcher/local.py:203-209): a job whose process has ended (the shell
    running `torchrun ... | tee`, :119-126, trained to its end or crashed alike) is COMPLETED (:33-37), and main_local
    waits with check_status=(CANCELLED, FAILED, NOT_FOUND, COMPLETED), remove_status=() (:288-297), so a COMPLETED job
    raises JobException (:211-219; realhf/scheduler/client.py:30-33), caught only to stop the other jobs and re-raised
    (:298-300): a traceback and exit 1. A config the launcher's own parse refuses (:238) stops it before any job."""
    ov = overrides(argv)
    if res.get("refused") and not res.get("crashed") and "steps_trained" not in res:
        return f"stub areal.launcher.local: {res['refused']}"
    run = f"{ov.get('experiment_name', 'asearcher-7b-zero-local')}_{ov.get('trial_name', 'run1')}"
    return (f"stub areal.launcher.local: realhf.scheduler.client.JobException: Job {run}:trainer JobState.COMPLETED at node local"
            + (f" (the trainer: {res['refused']})" if res.get("refused") else ""))


def main(argv):
    if argv and argv[0] == "stub":
        return stub(argv[1:])
    if not argv or argv[0] != "simulate" or len(argv) < 2:
        sys.stderr.write(__doc__ or "usage: engine_phases.py simulate LAUNCH.sh [--data DIR] [--ckpt DIR] [--env K=V]\n")
        return 2
    script = argv[1]
    data = ckpt = None
    env = {}
    args = []
    i = 2
    while i < len(argv):
        if argv[i] == "--data":
            data = argv[i + 1]
        elif argv[i] == "--ckpt":
            ckpt = argv[i + 1]
        elif argv[i] == "--env":
            k, v = argv[i + 1].split("=", 1)
            env[k] = v
        elif argv[i] == "--arg":  # what the script's "$@" passes to every phase
            args.append(argv[i + 1])
        else:
            sys.stderr.write(f"unknown argument {argv[i]}\n")
            return 2
        i += 2
    out = simulate(script, data, ckpt, env, extra_args=args)
    print(json.dumps(out, indent=1))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
