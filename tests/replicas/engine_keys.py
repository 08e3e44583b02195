#!/usr/bin/env python3
# tests/replicas/engine_keys.py: which `key=value` overrides each outside engine's Hydra accepts — the check a launch
# script's keys must pass before any GPU is asked for. Python 3 standard library only (`gen` also needs PyYAML).
#
# Hydra composes the engine's base config and puts it in struct mode; then each command-line override is applied
# (hydra/_internal/config_loader_impl.py, _apply_overrides_to_config, Hydra 1.3):
#   key=v    OmegaConf.update(cfg, key, v, merge=True) in struct mode: the key must already exist, else
#            "Could not override 'key'. To append to your config use +key=v" (a key under a null or empty node does not
#            exist either);
#   +key=v   force_add: refused with "Could not append to config. An item is already at 'key'" when the key exists
#            with a non-null value (a null one may be added to);
#   ++key=v  add or override, always accepted.
# The base configs, read at the commits the project cites and committed here as key lists (engine-keys/<engine>.tsv,
# one `key<TAB>kind` a line: kind dict / list / null / value; every node, inner and leaf, with its full dotted path):
#   search-r1  Search-R1 a14dc3a verl/trainer/config/ppo_trainer.yaml: main_ppo's own config
#              (verl/trainer/main_ppo.py:104 @hydra.main(config_path='config', config_name='ppo_trainer')), no defaults list.
#   verl       verl b178a3c verl/trainer/config/_generated_ppo_trainer.yaml (ppo_trainer.yaml with its defaults list
#              composed, as `scripts/print_cfg.py --cfg job` prints it; kept current by scripts/generate_trainer_config.sh,
#              a pre-commit hook, .pre-commit-config.yaml:19) merged with the keys of
#              examples/sglang_multiturn/config/search_multiturn_grpo.yaml (its `_self_` after ppo_trainer, :5-7), the
#              primary config the launch scripts name.
#   asearcher  ASearcher 813e804 AReaL/ASearcher/configs/asearcher_local.yaml (AReaL 0.3.4): areal/api/cli_args.py:835-851
#              parse_cli_args = hydra compose of this file with the overrides (struct mode), before the dataclass merge
#              (:854-859); AReaL's launcher parses the same way first (areal/launcher/local.py:238).
# Dataclass fields that are not in the yaml (AReaL merges the composed config into its dataclasses after Hydra) need `+`
# and must be fields: DATACLASS_ONLY lists the ones the scripts add, with the line that declares each.
#
# Usage:
#   engine_keys.py gen --search-r1 GITDIR --verl GITDIR --asearcher GITDIR   (rewrites engine-keys/*.tsv from the repos)
#   engine_keys.py check LAUNCH.sh...   (every override of every trainer call; JSON on stdout, exit 1 on any problem)
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS_DIR = os.path.join(HERE, "engine-keys")

SOURCES = {
    "search-r1": [("a14dc3a", "verl/trainer/config/ppo_trainer.yaml")],
    "verl": [("b178a3c", "verl/trainer/config/_generated_ppo_trainer.yaml"),
             ("b178a3c", "examples/sglang_multiturn/config/search_multiturn_grpo.yaml")],
    "asearcher": [("813e804", "AReaL/ASearcher/configs/asearcher_local.yaml")],
}
REPO_NAMES = {"search-r1": "PeterGriffinJin/Search-R1", "verl": "volcengine/verl", "asearcher": "inclusionAI/ASearcher"}

# Hydra's own config (not the job's): overrides of hydra.* go to it (hydra/conf/__init__.py HydraConf.searchpath).
HYDRA_KEYS = {"hydra.searchpath"}
# Fields of AReaL's dataclasses that asearcher_local.yaml does not hold: given as +key, merged into the dataclass.
DATACLASS_ONLY = {
    "asearcher": {
        "recover_start_step": "AReaL/ASearcher/train/asearcher.py:299-304 AgentRLConfig.recover_start_step (read at :396)",
    },
}


def flatten(node, prefix=""):
    """Every node of a YAML mapping with its full dotted path and kind."""
    out = {}
    for k, v in node.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out[key] = "dict"
            out.update(flatten(v, key + "."))
        elif isinstance(v, list):
            out[key] = "list"
        elif v is None:
            out[key] = "null"
        else:
            out[key] = "value"
    return out


def gen(repos):
    import yaml  # noqa: PLC0415 (only the generator needs it)

    os.makedirs(KEYS_DIR, exist_ok=True)
    for engine, files in SOURCES.items():
        keys = {}
        for commit, path in files:
            text = subprocess.run(["git", "--git-dir", repos[engine], "show", f"{commit}:{path}"], check=True,
                                  capture_output=True, text=True).stdout
            doc = yaml.safe_load(text) or {}
            doc.pop("defaults", None)
            doc.pop("hydra", None)
            for k, kind in flatten(doc).items():
                # The later file is merged over the earlier (Hydra's _self_): a dict stays a dict.
                if keys.get(k) == "dict" and kind != "dict":
                    continue
                keys[k] = kind
        head = [f"# {engine}: every key of the base config Hydra composes before it applies the overrides (struct mode).",
                "# Generated by tests/replicas/engine_keys.py gen from " +
                "; ".join(f"{REPO_NAMES[engine]} {c}:{p}" for c, p in files) + ".",
                "# key<TAB>kind (dict / list / null / value)"]
        with open(os.path.join(KEYS_DIR, f"{engine}.tsv"), "w") as fh:
            fh.write("\n".join(head) + "\n")
            for k in sorted(keys):
                fh.write(f"{k}\t{keys[k]}\n")
        print(f"{engine}: {len(keys)} keys")


_CACHE = {}


def load_keys(engine):
    if engine not in _CACHE:
        keys = {}
        with open(os.path.join(KEYS_DIR, f"{engine}.tsv")) as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                k, kind = line.rstrip("\n").split("\t")
                keys[k] = kind
        _CACHE[engine] = keys
    return _CACHE[engine]


def override_problem(engine, arg):
    """Hydra's refusal of one command-line override as one line, or None when the engine's Hydra accepts it."""
    if arg.startswith("-") or "=" not in arg:
        return None  # --config-path=…, --config-name=… (Hydra's flags), --config FILE (AReaL's argparse)
    raw, value = arg.split("=", 1)
    plus = len(raw) - len(raw.lstrip("+"))
    key = raw[plus:]
    if key.startswith("~"):
        return f"{arg}: deletions are not used by the launch scripts"
    if key in HYDRA_KEYS:
        return None
    keys = load_keys(engine)
    kind = keys.get(key)
    if plus >= 2:
        return None
    if plus == 1:
        if kind is None:
            if engine in DATACLASS_ONLY and key not in DATACLASS_ONLY[engine]:
                return (f"+{key}: not in the yaml and not a dataclass field the project checked "
                        "(AReaL merges the composed config into its dataclasses: an unknown key fails there)")
            return None
        if kind == "null" or value.strip().startswith(("{", "[")):
            return None
        return f"Could not append to config. An item is already at '{key}' (drop the +: {raw[1:]}={value})"
    if kind is None:
        return f"Could not override '{key}'. To append to your config use +{key}={value} (Key '{key.split('.')[-1]}' is not in struct)"
    return None


def problems_of(engine, argv):
    return [p for p in (override_problem(engine, a) for a in argv) if p]


def check(scripts):
    sys.path.insert(0, HERE)
    from engine_phases import engine_of, launch_commands, overrides  # noqa: PLC0415

    out, bad = [], False
    for script in scripts:
        env = {"HOME": "/home/u", "PWD": "/run", "CKPT": "/ckpt", "DATA": "/data", "WORLD": "/world", "MODEL": "/model",
               "PORT": "8000", "VERL_DIR": "/verl", "ASEARCHER_DIR": "/asearcher/AReaL", "PREV_MODEL": "/prev",
               "RAG_SERVER_ADDR_DIR": "/addr"}
        cmds, _ = launch_commands(open(script).read(), env, strict=False)
        calls = []
        for argv in cmds:
            engine = engine_of(argv, overrides(argv))
            keys = [a.split("=", 1)[0] for a in argv if "=" in a and not a.startswith("-")]
            probs = problems_of(engine, argv) if engine else [f"unknown trainer {argv[:2]}"]
            bad |= bool(probs)
            calls.append({"engine": engine, "keys": keys, "problems": probs})
        out.append({"script": os.path.basename(script), "calls": calls})
    print(json.dumps(out, indent=1))
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ["gen"]:
        repos = {}
        it = iter(argv[1:])
        for flag in it:
            repos[flag.lstrip("-")] = next(it)
        missing = set(SOURCES) - set(repos)
        if missing:
            sys.stderr.write(f"engine_keys.py gen: give --{' --'.join(sorted(missing))} GITDIR\n")
            return 2
        gen(repos)
        return 0
    if argv[:1] == ["check"] and len(argv) > 1:
        return check(argv[1:])
    sys.stderr.write("usage: engine_keys.py gen --search-r1 GITDIR --verl GITDIR --asearcher GITDIR | check LAUNCH.sh...\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
