#!/usr/bin/env python3
"""Generate the bundled veRL schemas: the composed default config per verl version and config name.

For each version it downloads the verl wheel (pip download --no-deps) into .cache/verl-wheels/, unpacks the
config YAMLs into .cache/verl-ref/<version>/, composes every primary config with Hydra's compose API (once per
choice of the `model_engine` config group; releases before 0.6 have flat YAMLs without config groups) and writes
rftc/verl/releases/schemas/<version>.json.gz:

    {"version": "0.9.1",
     "groups": {"model_engine": ["dp", "megatron", ...], "actor": [...], ...},   # config groups on disk
     "configs": {"ppo_trainer": {"default": 0, "choices": {"model_engine": {"dp": 0, "megatron": 1}}}, ...},
     "trees": [ {composed config, interpolations kept as text}, ... ],                # deduplicated
     "tree_choices": [ {"actor@actor_rollout_ref.actor": "dp_actor", ...}, ... ]}     # defaults-list choices

Leaf types are JSON's own (int, float, bool, string, null); "???" marks a mandatory value. A release whose
composed configs equal an older one's (0.2.0.post1 and 0.2.0.post2 ship 0.2's config files) is written as
{"version": "0.2.0.post1", "same_as": "0.2"}. schemas/index.json lists each release's config names and config
groups (a conversion needs those of every release, the trees of one or two).

schemas/config-files.json.xz holds the config files themselves of every release with config groups, for Hydra to
compose any other choice of a group (rftc.verl.releases.folder): {"files": [text, ...], "releases": {version:
{path under verl/: file index}}}. Each text is the file's content as OmegaConf's YAML loader reads it, written as
JSON (which is YAML) after the file's `# @...` header lines; comments go, and the generator checks that each text
loads to the same values, of the same types, as its file. Identical texts are stored once.
Usage: scripts/gen_verl_schemas.py [--unpack-only | --index-only | --files-only] [VERSION ...]
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Every verl release on PyPI since the first (the order is the releases' order).
VERSIONS = ("0.1", "0.2", "0.2.0.post1", "0.2.0.post2", "0.3.0.post0", "0.3.0.post1", "0.4.0", "0.4.1", "0.5.0",
            "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.9.0", "0.9.1")
WHEELS = ROOT / ".cache" / "verl-wheels"
REF = ROOT / ".cache" / "verl-ref"
OUT = ROOT / "rftc" / "verl" / "releases" / "schemas"
TRAINER_DIR = "verl/trainer/config"
# Primary configs outside verl/trainer/config, by the directory that holds them.
EXPERIMENTAL = {
    "verl/experimental/fully_async_policy/config": ("fully_async_ppo_trainer", "fully_async_ppo_megatron_trainer"),
    "verl/experimental/one_step_off_policy/config": ("one_step_off_ppo_trainer", "one_step_off_ppo_megatron_trainer"),
}
TRAINER_CONFIGS = ("ppo_trainer", "ppo_megatron_trainer", "sft_trainer_engine", "sft_trainer")
SWITCHABLE_GROUP = "model_engine"


def wheel(version: str) -> Path:
    found = sorted(WHEELS.glob(f"verl-{version}-*.whl"))  # 0.5.0's wheel is tagged py2.py3
    if not found:
        WHEELS.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(WHEELS),
                        f"verl=={version}"], check=True)
        found = sorted(WHEELS.glob(f"verl-{version}-*.whl"))
    return found[0]


def unpack(version: str) -> Path:
    """Extract the wheel's config YAMLs; return the directory that holds the `verl` folder."""
    dest = REF / version
    marker = dest / ".complete"
    if marker.exists():
        return dest
    with zipfile.ZipFile(wheel(version)) as z:
        for name in z.namelist():
            if name.endswith(".yaml") and name.startswith("verl/") and "/config/" in name:
                z.extract(name, dest)
    marker.write_text(version)
    return dest


def compose(config_dir: Path, name: str, overrides: list[str]):
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        cfg = hydra_compose(config_name=name, overrides=overrides, return_hydra_config=True)
    choices = {k: v for k, v in OmegaConf.to_container(cfg.hydra.runtime.choices).items()
               if not k.startswith("hydra/")}
    tree = OmegaConf.to_container(cfg, resolve=False)
    del tree["hydra"]
    return tree, choices


def groups_on_disk(trainer_dir: Path) -> dict[str, list[str]]:
    return {d.name: sorted(f.stem for f in d.glob("*.yaml"))
            for d in sorted(trainer_dir.iterdir()) if d.is_dir() and any(d.glob("*.yaml"))}


def build(version: str) -> dict:
    root = unpack(version)
    trainer_dir = root / TRAINER_DIR
    groups = groups_on_disk(trainer_dir)
    trees: list[dict] = []
    tree_choices: list[dict] = []
    index: dict[str, int] = {}

    def intern(composed: tuple[dict, dict]) -> int:
        tree, choices = composed
        key = json.dumps(tree, sort_keys=False)
        if key not in index:
            index[key] = len(trees)
            trees.append(tree)
            tree_choices.append(choices)
        return index[key]

    configs: dict[str, dict] = {}
    targets = [(trainer_dir, n, []) for n in TRAINER_CONFIGS]
    for sub, names in EXPERIMENTAL.items():
        # Their searchpath names verl's config folder relative to a checkout; point it at the unpacked one.
        targets += [(root / sub, n, [f"hydra.searchpath=[file://{trainer_dir}]"]) for n in names]
    for config_dir, name, base in targets:
        if not (config_dir / f"{name}.yaml").exists():
            continue
        default = compose(config_dir, name, base)
        entry: dict = {"default": intern(default), "choices": {}}
        if SWITCHABLE_GROUP in default[0]:
            choices = {}
            for option in groups.get(SWITCHABLE_GROUP, []):
                try:
                    choices[option] = intern(compose(config_dir, name, base + [f"{SWITCHABLE_GROUP}={option}"]))
                except Exception as exc:  # an engine whose files do not compose in this version
                    print(f"  {version} {name} {SWITCHABLE_GROUP}={option}: skipped ({type(exc).__name__})",
                          file=sys.stderr)
            entry["choices"][SWITCHABLE_GROUP] = choices
        configs[name] = entry
        print(f"  {version} {name}: {len(entry['choices'].get(SWITCHABLE_GROUP, {}))} engine choices",
              file=sys.stderr)
    return {"version": version, "groups": groups, "configs": configs, "trees": trees, "tree_choices": tree_choices}


def _same(a, b) -> bool:
    """Equal values of the same types (1, 1.0 and True are not the same value to a config)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def config_text(path: Path) -> str:
    """A config file as its header lines and its content written as JSON, checked to load as the file loads."""
    import yaml
    from omegaconf._utils import get_yaml_loader

    text = path.read_text(encoding="utf-8")
    header = []
    for line in text.splitlines():  # ConfigSource._get_header_dict: the comment lines before the content
        if not line.strip():
            continue
        if not line.lstrip().startswith("#"):
            break
        if re.match(r"^\s*#\s*@", line):
            header.append(line.strip() + "\n")
    data = yaml.load(text, Loader=get_yaml_loader())
    out = "".join(header) + json.dumps(data, separators=(",", ":"))
    if not _same(yaml.load(out, Loader=get_yaml_loader()), data):
        raise SystemExit(f"{path}: its JSON form does not load to the same values")
    return out


def write_config_files(versions) -> None:
    """schemas/config-files.json.xz from the unpacked wheels of the releases with config groups."""
    items = []
    for v in versions:
        root = unpack(v)
        if not groups_on_disk(root / TRAINER_DIR):
            continue
        for f in sorted((root / "verl").rglob("*.yaml")):
            if "config" in f.relative_to(root / "verl").parts:
                items.append((str(f.relative_to(root / "verl")), VERSIONS.index(v), v, config_text(f)))
    files: list[str] = []
    index: dict[str, int] = {}
    releases: dict[str, dict] = {}
    for path, _, v, text in sorted(items):  # one file's releases side by side: they compress together
        releases.setdefault(v, {})[path] = index.setdefault(text, len(index))
        if index[text] == len(files):
            files.append(text)
    raw = json.dumps({"files": files, "releases": dict(sorted(releases.items(), key=lambda r: VERSIONS.index(
        r[0])))}, separators=(",", ":")).encode()
    (OUT / "config-files.json.xz").write_bytes(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))
    print(f"config files: {len(files)} distinct of {len(items)}, {len(raw)} bytes json", file=sys.stderr)


def write_index() -> None:
    """schemas/index.json from the schema files: release -> its config names and config group names."""
    def schema(version: str) -> dict:
        data = json.loads(gzip.decompress((OUT / f"{version}.json.gz").read_bytes()))
        return schema(data["same_as"]) if "same_as" in data else data

    versions = sorted(f.name[: -len(".json.gz")] for f in OUT.glob("*.json.gz"))
    index = {v: {"configs": sorted(schema(v)["configs"]), "groups": sorted(schema(v)["groups"])} for v in versions}
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("versions", nargs="*", default=list(VERSIONS))
    ap.add_argument("--unpack-only", action="store_true", help="only download and unpack the reference configs")
    ap.add_argument("--index-only", action="store_true", help="only write schemas/index.json from the schema files")
    ap.add_argument("--files-only", action="store_true", help="only write schemas/config-files.json.xz")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.index_only:
        write_index()
        return 0
    if args.files_only:
        write_config_files(VERSIONS)
        return 0
    built: dict[str, dict] = {}  # version -> its schema without the version (to find releases that repeat one)
    for v in sorted(args.versions, key=VERSIONS.index):
        if args.unpack_only:
            print(unpack(v))
            continue
        data = build(v)
        body = {k: x for k, x in data.items() if k != "version"}
        same = next((u for u, b in built.items() if b == body), None)
        built[v] = body
        if same is not None:
            data = {"version": v, "same_as": same}
        raw = json.dumps(data, separators=(",", ":")).encode()
        # mtime=0 keeps the output byte-identical across runs.
        (OUT / f"{v}.json.gz").write_bytes(gzip.compress(raw, mtime=0))
        print(f"{v}: " + (f"same configs as {same}" if same else f"{len(data['trees'])} distinct trees, "
                          f"{len(raw)} bytes json"), file=sys.stderr)
    if not args.unpack_only:
        write_index()
        write_config_files(VERSIONS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
