"""`rftc run --address` on a Ray cluster of several nodes: the config's split of cluster.node_num x gpu_per_node
slots (rftc_runtime.placement), then real runs on a three-node cluster started on this machine (Ray's own
multi-node test cluster, each node a raylet of its own with one CPU): the explorer and the trainer's two ranks
each on the node the config gives them, weights synced across nodes, checkpoints in the run's folder; a worker
node killed mid-run stops the run naming the node and the last checkpoint, and the same command resumes from it.
The real runs take about two minutes on 2 cores."""

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime_support import settings
from rftc_runtime.placement import Node, assign
from rftc_runtime.plan import make_plan

ROOT = Path(__file__).resolve().parents[1]


def _nodes(n: int, cpus: float = 1, gpus: float = 0, head_gpus: float | None = None) -> list[Node]:
    return [Node(f"{i:02d}" + "ab" * 27, "10.0.0.%d" % i, cpus, gpus if i or head_gpus is None else head_gpus,
                 head=i == 0) for i in range(n)]


def _ids(nodes) -> list[str]:
    return [n.id[:2] for n in nodes]


def test_slots_go_to_the_explorer_first_then_the_trainer_node_by_node():
    nodes = _nodes(3)
    placement, errors = assign(nodes, 3, 1, engines=1, tp=1, use_gpu=False, address="head:6379")
    assert not errors
    assert _ids(placement.explorers) == ["00"]
    assert [(n.id[:2], r) for n, r in placement.trainer] == [("01", 1), ("02", 1)]
    # two engines of two GPUs on nodes of four: the first node is the explorer's, the trainer takes whole nodes
    placement, errors = assign(_nodes(3, cpus=8, gpus=4), 3, 4, engines=2, tp=2, use_gpu=True, address="h")
    assert not errors and _ids(placement.explorers) == ["00", "00"]
    assert [(n.id[:2], r) for n, r in placement.trainer] == [("01", 4), ("02", 4)]
    # a trainer that fits beside the explorer shares its node
    placement, errors = assign(_nodes(1, cpus=8, gpus=8), 1, 8, engines=2, tp=1, use_gpu=True, address="h")
    assert not errors and [(n.id[:2], r) for n, r in placement.trainer] == [("00", 6)]


def test_a_gpu_cluster_skips_its_cpu_only_head():
    nodes = _nodes(3, cpus=8, gpus=2, head_gpus=0)
    placement, errors = assign(nodes, 2, 2, engines=1, tp=2, use_gpu=True, address="h")
    assert not errors and _ids(placement.explorers) == ["01"]
    assert [(n.id[:2], r) for n, r in placement.trainer] == [("02", 2)]


def test_too_few_nodes_or_too_little_on_one_is_an_error_naming_the_cluster():
    _, errors = assign(_nodes(2), 3, 1, engines=1, tp=1, use_gpu=False, address="head:6379")
    assert errors[0][0] == "RFTC509" and "node_num is 3, and the Ray cluster at head:6379 has 2 alive" in errors[0][1]
    _, errors = assign(_nodes(2, cpus=1), 2, 2, engines=1, tp=1, use_gpu=False, address="h")
    assert [e[0] for e in errors] == ["RFTC509", "RFTC509"]
    assert "has 1 CPU(s); the config places 2 CPU(s) (1 engine(s), 1 trainer rank(s))" in errors[0][1]


def _cluster_settings(tmp_path, node_num=3, gpu_per_node=1, engine_num=1, train_batch=8):
    return settings({"algorithm": {"algorithm_type": "grpo", "repeat_times": 4},
                     "model": {"model_path": str(tmp_path), "max_model_len": 96, "max_response_tokens": 8},
                     "cluster": {"node_num": node_num, "gpu_per_node": gpu_per_node},
                     "explorer": {"rollout_model": {"engine_num": engine_num}},
                     "buffer": {"batch_size": 2, "train_batch_size": train_batch,
                                "explorer_input": {"taskset": {"path": str(tmp_path)}}},
                     "checkpoint_root_dir": str(tmp_path / "ckpt")})


def test_the_plan_on_a_cpu_cluster_follows_the_configs_split(tmp_path):
    s = _cluster_settings(tmp_path)
    here = make_plan(s, gpus=0)  # this machine: one rank, and the info says the nodes are not used
    assert here.placement is None and here.trainer_ranks == 1
    assert any("this run is on this machine alone" in i[1] for i in here.infos)
    plan = make_plan(s, nodes=_nodes(3), address="head:6379")
    assert (plan.trainer_ranks, plan.trainer_nodes, plan.engines, plan.device) == (2, [1, 1], 1, "cpu")
    text = plan.describe(s)
    assert "placement\n  explorer_0  on node 00abab" in text and "rank 1 on node 02abab" in text
    # an experience count that does not split over the cluster's two ranks
    odd = make_plan(_cluster_settings(tmp_path, train_batch=7), nodes=_nodes(3), address="h")
    assert any("do not split over its 2 CPU worker slot(s)" in e[1] for e in odd.errors)
    unset = make_plan(_cluster_settings(tmp_path, gpu_per_node=0), nodes=_nodes(3), address="h")
    assert any("has no GPUs and cluster.gpu_per_node is unset" in e[1] for e in unset.errors)
    short = make_plan(s, nodes=_nodes(2), address="h")
    assert any("has 2 alive node(s)" in e[1] for e in short.errors) and short.placement is None


# --- real runs on a three-node cluster ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cluster():
    from runtime_support import require

    require("vllm", "ray", "verl", "torch")
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(2):
        c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    c.shutdown()


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    from runtime_support import engine_model, require_model

    require_model()
    from rftc_runtime.arith_taskset import write

    root = tmp_path_factory.mktemp("cluster")
    write(root / "data")
    return engine_model(root / "model"), root / "data"


def _config(tmp_path, parts, steps: int) -> Path:
    """The README example converted, small, on cluster.node_num 3 x gpu_per_node 1: the explorer's engine on the
    first node, a trainer rank on each of the other two; a checkpoint every step."""
    from ruamel.yaml import YAML

    model, data = parts
    overrides = ["data.train_batch_size=2", "actor_rollout_ref.actor.ppo_mini_batch_size=2",
                 "actor_rollout_ref.rollout.n=4", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
                 "data.max_response_length=4", f"trainer.total_training_steps={steps}", "trainer.save_freq=1"]
    path = tmp_path / "config.yaml"
    done = subprocess.run([sys.executable, "-m", "rftc", "convert", "examples/arith_grpo.sh", "-o", str(path), "--",
                           *overrides], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    yaml = YAML()
    cfg = yaml.load(path.read_text())
    cfg["checkpoint_root_dir"] = str(tmp_path / "ckpt")
    cfg["model"]["model_path"] = str(model)
    for ts in cfg["buffer"]["explorer_input"]["tasksets"] + cfg["buffer"]["explorer_input"]["eval_tasksets"]:
        ts["path"] = str(data)
    cfg["cluster"].update(node_num=3, gpu_per_node=1)
    yaml.dump(cfg, path)
    return path


def _start(tmp_path, config, cluster, name: str) -> subprocess.Popen:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    with open(tmp_path / f"{name}.out", "w") as out, open(tmp_path / f"{name}.err", "w") as err:
        return subprocess.Popen([sys.executable, "-m", "rftc", "run", str(config), "--address", cluster.address,
                                 "--no-live"], cwd=ROOT, env=env, stdout=out, stderr=err)


def _placed(out: str) -> dict[str, str]:
    """'explorer_0' / 'trainer rank N' -> the node id prefix the run's own actors reported."""
    line = next(x for x in out.splitlines() if x.startswith("placed as planned: "))
    return dict(part.rsplit(" on node ", 1) for part in line.removeprefix("placed as planned: ").split(", "))


def _records(job: Path) -> list[dict]:
    return [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_a_run_spans_three_nodes_as_the_config_says(tmp_path, cluster, parts):
    run = _start(tmp_path, _config(tmp_path, parts, steps=2), cluster, "run")
    assert run.wait(timeout=400) == 0, (tmp_path / "run.err").read_text()[-3000:]
    out = (tmp_path / "run.out").read_text()
    placed = _placed(out)
    head, workers = cluster.head_node.node_id[:8], [n.node_id[:8] for n in cluster.worker_nodes]
    assert placed["explorer_0"] == head and sorted([placed["trainer rank 0"], placed["trainer rank 1"]]) == \
        sorted(workers), out
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo"
    records = _records(job)
    # each step's rollouts came from the weights the trainer's ranks (on other nodes) published the step before
    assert [r["rollout/weights_version"] for r in records] == [0, 1], records
    assert all(math.isfinite(r["actor/grad_norm"]) for r in records)
    for rank in (0, 1):  # both ranks' shards, in the run's one folder
        assert (job / "global_step_2" / "actor" / f"model_world_size_2_rank_{rank}.pt").is_file()


@pytest.mark.slow
def test_a_lost_node_stops_the_run_naming_it_and_the_same_command_resumes(tmp_path, cluster, parts):
    steps = 3
    config = _config(tmp_path, parts, steps=steps)
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo"
    marker = job / "latest_checkpointed_iteration.txt"
    first = _start(tmp_path, config, cluster, "first")
    try:
        end = time.monotonic() + 300
        while not marker.is_file():
            assert first.poll() is None, (tmp_path / "first.err").read_text()[-3000:]
            assert time.monotonic() < end, "no checkpoint after 300s"
            time.sleep(0.5)
        lost = _placed((tmp_path / "first.out").read_text())["trainer rank 1"]
        node = next(n for n in cluster.worker_nodes if n.node_id.startswith(lost))
        cluster.remove_node(node, allow_graceful=False)  # its raylet and every process on it, as a crash would
        rc = first.wait(timeout=120)  # a hang fails here
    finally:
        if first.poll() is None:
            first.kill()
    err = (tmp_path / "first.err").read_text()
    saved = int(marker.read_text())
    assert rc == 1 and 1 <= saved < steps, err[-3000:]
    assert "error[RFTC500]: the trainer worker died" in err and f"trainer rank 1 ran on node {lost}" in err, err
    assert "which left the Ray cluster" in err and f"the last checkpoint is step {saved} (" in err, err
    assert f"run the same command again once the node is back: it resumes from step {saved}" in err
    assert "Traceback" not in err and "Raylet is terminated" not in (tmp_path / "first.out").read_text()

    cluster.add_node(num_cpus=1)  # the node is back (a new one in its place)
    cluster.wait_for_nodes()
    again = _start(tmp_path, config, cluster, "again")
    assert again.wait(timeout=400) == 0, (tmp_path / "again.err").read_text()[-3000:]
    out = (tmp_path / "again.out").read_text()
    steps_run = [int(x.split()[1].split("/")[0]) for x in out.splitlines() if x.startswith("step ")]
    assert steps_run == list(range(saved + 1, steps + 1)), out
    records = _records(job)
    assert [r["step"] for r in records] == list(range(1, steps + 1))  # one record per step, none lost
    assert records[saved]["rollout/weights_version"] == saved  # the engine got the checkpoint's weights first
    state = json.loads((job / f"global_step_{steps}" / "state.json").read_text())
    assert state["train_step"] == steps and state["reader_position"] == steps * 2  # the data went on from there


def test_an_address_where_no_cluster_answers_stops_at_once():
    import socket

    from rftc_runtime.driver import _reach
    from rftc_runtime.errors import RuntimeFailure

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RuntimeFailure) as failure:
        _reach(f"127.0.0.1:{port}")
    assert failure.value.code == "RFTC512" and f"no Ray cluster answers at 127.0.0.1:{port}" in failure.value.message
    _reach("auto")  # Ray's own lookup: left to Ray


def test_asking_for_the_node_outside_ray_starts_no_ray():
    from runtime_support import require

    require("ray")
    import ray

    from rftc_runtime.placement import node_id

    assert node_id() is None and not ray.is_initialized()  # an in-process explorer's describe() asks it
