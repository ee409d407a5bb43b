"""The trainer: veRL's training workers, driven from this process as veRL's RayPPOTrainer drives them.

The roles the plan places (actor, reference, critic; see :class:`rftc_runtime.plan.RoleSpec`) are veRL
``TrainingWorker``\\ s (:class:`rftc_runtime.workers.EngineWorker`), each hosting one FSDP engine
(``FSDPEngineWithLMHead``, ``FSDPEngineWithValueHead``), colocated by veRL's ``create_colocated_worker_cls`` in one
process per rank of a ``RayWorkerGroup`` over a ``RayResourcePool``: GPUs with NCCL, or CPUs with gloo through
the CPU platform (:mod:`rftc_runtime.verl_cpu`). A training step runs in veRL's order: reference and old
log-probs, the critic's values (``infer_batch``), advantages on this process with veRL's ``compute_advantage``, the
critic update, then the actor update once ``critic_warmup`` is reached (``train_mini_batch``, with veRL's
``value_loss`` and ``ppo_loss``; SFT: ``train_batch`` with ``sft_loss``). The methods keep Trinity's trainer
vocabulary (train_step, need_sync, upload_state_dict, need_save, save_checkpoint, ...).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import time
from functools import partial
from pathlib import Path

from rftc_runtime import checkpoints


PLACEMENT_TIMEOUT_S = 300


def _pinned_pool(plan):
    """veRL's resource pool with each node's placement group on the node the plan gives it (Ray's node-id label),
    so that the trainer's ranks go where the config says on a cluster of several nodes: veRL's own pool only
    packs each node's ranks together, wherever Ray finds room."""
    import ray
    from ray.util.placement_group import placement_group
    from verl.single_controller.ray import RayResourcePool

    from rftc_runtime.errors import RuntimeFailure

    class PinnedResourcePool(RayResourcePool):
        def get_placement_groups(self, strategy="STRICT_PACK", name=None, device_name="cuda"):
            if self.pgs is None:
                bundle = {"CPU": self.max_colocate_count, **({"GPU": 1} if self.use_gpu else {})}
                pgs = [placement_group([bundle] * ranks, strategy=strategy,
                                       bundle_label_selector=[{"ray.io/node-id": node.id}] * ranks)
                       for node, ranks in plan.placement.trainer]
                refs = [pg.ready() for pg in pgs]
                _, waiting = ray.wait(refs, num_returns=len(refs), timeout=PLACEMENT_TIMEOUT_S)
                if waiting:
                    waiting = [n.words() for (n, _), ref in zip(plan.placement.trainer, refs) if ref in waiting]
                    raise RuntimeFailure("RFTC509", f"the trainer's ranks found no room on {', '.join(waiting)} "
                                         f"within {PLACEMENT_TIMEOUT_S}s", "free the node's resources (ray status "
                                         "shows what holds them) and run again")
                self.pgs = pgs
            return self.pgs

    return PinnedResourcePool(plan.trainer_nodes, use_gpu=plan.device == "cuda", max_colocate_count=1)


class Trainer:
    def __init__(self, settings, plan, total_steps: int):
        self.s = settings
        self.plan = plan
        self.total_steps = max(1, total_steps)
        self.schedule = settings.schedule()
        self._step = 0
        self._pending_save = None  # (worker refs, step, state) of a save still being written
        self._saved: list[Path] = []  # the steps this run committed, oldest first (for max_checkpoints_to_keep)
        self.groups: dict = {}
        self._pool, self._workers = None, []

    # --- lifecycle -------------------------------------------------------------------------------------
    def prepare(self) -> dict:
        """Start the worker group, build every role's engine, set the losses and resume from the latest
        checkpoint when configured. Returns the state saved with that checkpoint (explorer position...) or {}."""
        import ray
        from verl.single_controller.ray import (RayClassWithInitArgs, RayResourcePool, RayWorkerGroup,
                                                create_colocated_worker_cls)
        from verl.utils.tokenizer import hf_tokenizer

        from rftc_runtime import algorithm
        from rftc_runtime.engine_configs import training_worker_config
        from rftc_runtime.workers import EngineWorker

        if self.plan.device == "cpu":
            from rftc_runtime import verl_cpu

            verl_cpu.use()
        sft = self.s.algorithm.algorithm_type == "sft"
        per_step = self.plan.experiences_per_step
        critic = self.s.critic
        if critic is not None:
            critic = dataclasses.replace(critic, micro_batch_size=self._role("critic").micro_batch_size)
        self.bound = None if sft else algorithm.bind(self.s.algorithm, per_step, self.plan.micro_batch_size,
                                                     self.s.grad_clip, critic)
        worker = ray.remote(EngineWorker)
        classes = {role.name: RayClassWithInitArgs(worker, config=training_worker_config(
            role, self.s, self.plan, self.total_steps)) for role in self.plan.roles}
        pool = (RayResourcePool(self.plan.trainer_nodes, use_gpu=self.plan.device == "cuda", max_colocate_count=1)
                if self.plan.placement is None else _pinned_pool(self.plan))
        threads = max(1, self.plan.threads // self.plan.trainer_ranks) if self.plan.device == "cpu" else 1
        with contextlib.redirect_stdout(io.StringIO()):  # veRL prints the colocated class's base
            colocated = create_colocated_worker_cls(classes)
        group = RayWorkerGroup(pool, colocated, device_name=self.plan.device,
                               worker_env={"OMP_NUM_THREADS": str(threads)})
        self._pool, self._workers = pool, group.workers
        self.groups = group.spawn(prefix_set=classes.keys())
        for name, wg in self.groups.items():  # veRL's order: build each engine, then give it its loss
            wg.reset()
            loss = self._loss(name, sft)
            if loss is not None:
                wg.set_loss_fn(loss)
        tokenizer = hf_tokenizer(self.s.model_path)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        self.tokenizer = tokenizer
        latest = checkpoints.latest(Path(self.s.checkpoint_job_dir)) if self.s.continue_from_checkpoint else None
        if latest is None:
            return {}
        for name in self._trained_roles():
            problem = checkpoints.missing_role(latest, name, self.plan.trainer_ranks)
            if problem:
                raise ValueError(problem)
        for name in self._trained_roles():
            self.groups[name].load_checkpoint(str(latest / name), del_local_after_load=False)
        state = checkpoints.state(latest)
        self._step = int(state["train_step"])
        return state

    def _role(self, name: str):
        return next(r for r in self.plan.roles if r.name == name)

    def _trained_roles(self) -> list[str]:
        return [r.name for r in self.plan.roles if not r.forward_only]

    def _loss(self, role: str, sft: bool):
        from verl.workers.utils.losses import ppo_loss, sft_loss, value_loss

        if role == "actor":
            return partial(sft_loss, config=None) if sft else partial(ppo_loss, config=self.bound.actor_config)
        if role == "critic":
            return partial(value_loss, config=self.bound.critic_config)
        return None  # the reference model only infers

    def workers(self) -> list:
        """Each rank's worker process (a Ray actor), in rank order."""
        return list(self._workers)

    def describe(self) -> dict:
        """What each role's worker built (engine class, strategy, dtypes, device, ranks), per rank."""
        return {name: wg.describe() for name, wg in self.groups.items()}

    def shutdown(self) -> None:
        """End the worker processes and free their resources (ray.shutdown does it for a whole run)."""
        import ray
        from ray.util import remove_placement_group

        self.wait_for_save()
        for worker in self._workers:
            ray.kill(worker)
        for pg in self._pool.pgs or []:
            remove_placement_group(pg)
        self.groups = {}

    # --- one step --------------------------------------------------------------------------------------
    def _temperature(self) -> float:
        return float(self.s.taskset.rollout_args.temperature) if self.s.taskset else 1.0

    def _infer(self, role: str, data: dict, key: str, **meta):
        """A forward pass of ``role`` over the batch; its per-token ``key`` output cut to the responses."""
        from rftc_runtime.batch import engine_batch, response_values

        batch = engine_batch(data, (), temperature=self._temperature(), compute_loss=False, **meta)
        return response_values(self.groups[role].infer_batch(batch).get(), key, batch)

    def _train(self, role: str, data: dict, keys, epochs: int, **meta) -> dict:
        """veRL's train_mini_batch: the step's experiences as one mini-batch, ``epochs`` passes, the LR schedule
        stepped once at the end; the metrics reduced and named as veRL's trainer names them."""
        from verl.utils import tensordict_utils as tu
        from verl.utils.metric import reduce_metrics
        from verl.utils.py_functional import rename_dict

        from rftc_runtime.batch import engine_batch

        n = self.plan.experiences_per_step
        batch = engine_batch(data, keys, temperature=self._temperature(), global_batch_size=n, mini_batch_size=n,
                             epochs=epochs, seed=self.s.seed, dataloader_kwargs={"shuffle": False},
                             compute_loss=True, **meta)
        metrics = tu.get(self.groups[role].train_mini_batch(batch).get(), "metrics")
        metrics = rename_dict(reduce_metrics(metrics), f"{role}/")
        metrics[f"perf/mfu/{role}"] = metrics.pop(f"{role}/mfu", 0.0)
        if self.plan.device == "cpu":  # the CPU platform has no device memory to report: veRL reads 0
            for key in ("max_memory_allocated_gb", "max_memory_reserved_gb"):
                metrics.pop(f"{role}/perf/{key}", None)
        return metrics

    def train_step(self, exps: list) -> dict:
        from verl import DataProto

        from rftc_runtime import algorithm
        from rftc_runtime.batch import collate

        self.wait_for_save()
        t0 = time.perf_counter()
        data = collate(exps, self.pad_id)
        timings = {}
        if "ref" in self.groups:
            t = time.perf_counter()
            data["ref_log_prob"] = self._infer("ref", data, "log_probs", calculate_entropy=False)
            timings["time/ref"] = time.perf_counter() - t
        t = time.perf_counter()
        if not self.s.algorithm.bypass_old_logprobs:
            data["old_log_probs"] = self._infer("actor", data, "log_probs", calculate_entropy=False)
        else:  # Trinity's default: the rollout's log-probs are the old log-probs
            data["old_log_probs"] = data["rollout_log_probs"]
        timings["time/old_logprob"] = time.perf_counter() - t
        proto_keys = ["token_level_scores", "response_mask", "old_log_probs", "responses"]
        if "ref_log_prob" in data:
            proto_keys.append("ref_log_prob")
        if "critic" in self.groups:
            t = time.perf_counter()
            data["values"] = self._infer("critic", data, "values")
            timings["time/critic"] = time.perf_counter() - t
            proto_keys.append("values")
        proto = DataProto.from_dict(tensors={k: data[k] for k in proto_keys}, non_tensors={"uid": data["uid"]})
        metrics = algorithm.advantages(self.bound, proto)  # on this process, as veRL's trainer computes them
        data["advantages"] = proto.batch["advantages"]
        mask = data["response_mask"]
        if "critic" in self.groups:
            t = time.perf_counter()
            data["returns"] = proto.batch["returns"]
            metrics.update(self._train("critic", data, ("values", "returns"), self.s.critic.ppo_epochs))
            timings["time/critic"] += time.perf_counter() - t
            ret = data["returns"][mask.bool()]
            metrics["critic/returns_mean"] = float(ret.mean()) if ret.numel() else 0.0
        # veRL and Trinity update the actor once the step's number reaches trainer.critic_warmup.
        if self.s.critic is None or self.s.critic.warmup <= self._step + 1:
            t = time.perf_counter()
            keys = ("old_log_probs", "advantages") + (("ref_log_prob",) if self.bound.use_kl_loss else ())
            metrics.update(self._train("actor", data, keys, self.s.actor.ppo_epochs,
                                       calculate_entropy=self.bound.entropy_coef != 0.0))
            timings["time/update"] = time.perf_counter() - t
        self._step += 1
        adv = data["advantages"][mask.bool()]
        return {**metrics, **timings, "train/step": self._step, "train/experiences": len(exps),
                "train/response_tokens": int(mask.sum().item()),
                "train/advantage_mean": float(adv.mean()) if adv.numel() else 0.0,
                "time/train_step": time.perf_counter() - t0}

    def sft_step(self, conversations: list[list[dict]]) -> dict:
        """One SFT step (algorithm_type sft) on a batch of chat conversations, as veRL's SFT trainer runs one:
        ``train_batch`` with veRL's sft_loss on the response tokens, one optimizer step, the LR schedule stepped."""
        from tensordict.tensorclass import NonTensorData
        from verl.utils import tensordict_utils as tu

        from rftc_runtime import sft
        from rftc_runtime.batch import collate, engine_batch, sft_loss_mask
        from rftc_runtime.experience import Experience

        self.wait_for_save()
        t0 = time.perf_counter()
        exps = []
        every_turn = self.s.sft_data.format.enable_concatenated_multi_turn
        for i, msgs in enumerate(conversations):
            if every_turn:
                prompt, response, mask = sft.tokenize_every_turn(self.tokenizer, msgs)
            else:
                (prompt, response), mask = sft.tokenize(self.tokenizer, msgs), None
            exps.append(Experience(i, i, prompt, response, [0.0] * len(response), 0.0, action_mask=mask))
        data = collate(exps, self.pad_id)
        batch = engine_batch(data, (), temperature=1.0, global_batch_size=len(exps), update_lr_scheduler=True)
        batch["loss_mask"] = sft_loss_mask(data, batch)
        tu.assign_non_tensor(batch, global_token_num=NonTensorData(batch["input_ids"].offsets().diff().tolist()))
        m = tu.get(self.groups["actor"].train_batch(batch).get(), "metrics")
        self._step += 1
        return {"actor/sft_loss": float(m["loss"]), "actor/grad_norm": float(m["grad_norm"]),
                "actor/lr": float(m["lr"]), "perf/mfu/actor": float(m.get("mfu", 0.0)), "train/step": self._step,
                "train/experiences": len(exps), "train/response_tokens": int(data["response_mask"].sum().item()),
                "time/train_step": time.perf_counter() - t0}

    # --- weights -----------------------------------------------------------------------------------------
    def need_sync(self) -> bool:
        return self.schedule.trainer_needs_sync(self._step)

    def upload_state_dict(self, path: str | None = None):
        """The policy's weights for the explorer, in the rollout engine's dtype: every rank iterates the engine's
        ``get_per_tensor_param`` (it gathers the shards); rank 0's full state dict stays in Ray's object store,
        or is written to ``path``. Returns the reference to it (or to the path) for the explorer."""
        import ray

        refs = self.groups["actor"].export_weights(self.plan.dtype, path)
        ray.get(refs[1:])  # the other ranks only took part in the gather
        return refs[0]

    def weight_group_address(self) -> tuple[str, str]:
        """A free address on rank 0's node for the NCCL weight group (sync method nccl)."""
        import ray

        return tuple(ray.get(self._workers[0].get_available_master_addr_port.remote()))

    def join_weight_group(self, host: str, port: int, world_size: int) -> None:
        self.groups["actor"].join_weight_group(host, port, world_size)

    def weight_specs(self) -> list:
        return self.groups["actor"].weight_specs(self.plan.dtype)[0]

    def broadcast_weights(self) -> None:
        """Start the broadcast (the workers run it while the engines receive; later calls queue behind it)."""
        self.groups["actor"].broadcast_weights(self.plan.dtype)

    # --- checkpoints ---------------------------------------------------------------------------------------
    def need_save(self) -> bool:
        return self.s.save_interval > 0 and self._step % self.s.save_interval == 0

    def save_checkpoint(self, block_until_saved: bool = False, save_as_hf: bool = False, extra: dict | None = None):
        """Every trained role's engine saves itself (model, optimizer, LR schedule, RNG) into the step's staging
        folder, the policy also as a Hugging Face model when ``save_as_hf``; the step is committed once all have
        finished (at the next call into the trainer, or now with ``block_until_saved``)."""
        self.wait_for_save()
        job = Path(self.s.checkpoint_job_dir)
        tmp = checkpoints.staging_dir(job, self._step)
        refs = []
        for name in self._trained_roles():
            refs += self.groups[name].save(str(tmp / name), self._step, save_as_hf and name == "actor")
        self._pending_save = (refs, self._step, {"train_step": self._step, **(extra or {})})
        if block_until_saved:
            self.wait_for_save()
        return str(checkpoints.step_dir(job, self._step))

    def wait_for_save(self) -> None:
        if self._pending_save is None:
            return
        import ray

        refs, step, state = self._pending_save
        self._pending_save = None
        ray.get(refs)
        checkpoints.retain(self._saved, checkpoints.commit(Path(self.s.checkpoint_job_dir), step, state),
                           self.s.max_checkpoints_to_keep)

