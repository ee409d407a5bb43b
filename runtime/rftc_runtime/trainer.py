"""The trainer: a training-engine wrapper with Trinity's vocabulary (prepare, train_step, train_step_num,
need_sync / upload_state_dict, need_save / save_checkpoint / wait_for_save, shutdown, is_alive).

On CPU the engine is a Hugging Face transformers model with a torch optimizer; every RL quantity (advantages,
KL in the reward, policy loss, KL loss, entropy, loss aggregation, value loss, log-probs from logits, LR
schedules) is computed by veRL's own functions (see :mod:`rftc_runtime.algorithm`). With a critic (PPO) a value
model (:mod:`rftc_runtime.critic`) with its own optimizer is trained beside the actor, in veRL's order: values,
advantages (GAE), critic update, then the actor update unless the critic is still warming up.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

from rftc_runtime import checkpoints
from rftc_runtime.synchronizer import FixedSchedule


class HFTrainEngine:
    def __init__(self, settings, total_steps: int, threads: int | None = None, dtype: str = "bfloat16"):
        self.s = settings
        self.dtype = dtype  # the rollout engine's dtype: the compute dtype of forward passes and synced weights
        self.total_steps = max(1, total_steps)
        self.threads = threads
        self.schedule = FixedSchedule(settings.sync_interval, settings.sync_offset)
        self._step = 0
        self._save_thread: threading.Thread | None = None
        self.resumed_state: dict = {}

    # --- lifecycle -------------------------------------------------------------------------------------
    def prepare(self) -> dict:
        """Load model, reference model and optimizer; resume from the latest checkpoint when configured.
        Returns the state saved with that checkpoint (explorer position...) or {}."""
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from rftc_runtime import algorithm

        if self.threads:
            torch.set_num_threads(self.threads)
        torch.manual_seed(self.s.seed)
        self.tokenizer = AutoTokenizer.from_pretrained(self.s.model_path)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        self.model = AutoModelForCausalLM.from_pretrained(self.s.model_path, dtype=torch.float32)
        self.model.config.use_cache = False
        self.model.train()
        self.ref_model = None
        if self.s.algorithm.needs_reference:
            self.ref_model = AutoModelForCausalLM.from_pretrained(self.s.model_path, dtype=getattr(torch, self.dtype)).eval()
            self.ref_model.requires_grad_(False)
        mini = self.s.experiences_per_step
        micro = int(self.s.micro_batch_size or min(mini, 16))
        self.micro = micro
        self.critic = None  # (value model, optimizer, scheduler)
        critic = self.s.critic
        if critic is not None:
            from rftc_runtime.critic import load_value_model

            critic = dataclasses.replace(critic, micro_batch_size=int(critic.micro_batch_size or micro))
            value_model = load_value_model(critic.model_path)
            value_model.train()
            self.critic = (value_model, *self._optimizer(value_model, critic.optimizer))
        self.critic_micro = critic.micro_batch_size if critic is not None else micro
        # sft has no advantage or policy loss to bind: sft_step uses veRL's sft_loss
        sft = self.s.algorithm.algorithm_type == "sft"
        self.bound = None if sft else algorithm.bind(self.s.algorithm, mini, micro, self.s.grad_clip, critic)
        self.optimizer, self.scheduler = self._optimizer(self.model, self.s.algorithm.optimizer)
        job = Path(self.s.checkpoint_job_dir)
        latest = checkpoints.latest(job) if self.s.continue_from_checkpoint else None
        if latest is not None:
            state = checkpoints.load(latest, self.model, self.optimizer, self.scheduler, critic=self.critic)
            self._step = int(state["train_step"])
            self.resumed_state = state
        return dict(self.resumed_state)

    def _optimizer(self, model, o):
        """Optimizer and LR schedule for ``model`` from a settings.Optimizer, as veRL's FSDP engine builds them."""
        import torch
        from verl.utils.torch_functional import get_constant_schedule_with_warmup, get_cosine_schedule_with_warmup

        params = [p for p in model.parameters() if p.requires_grad]
        if o.optimizer_type in ("adam", "adamw"):  # veRL's FSDP workers map both to AdamW
            opt = torch.optim.AdamW(params, lr=o.lr, betas=tuple(o.betas), weight_decay=o.weight_decay)
        elif o.optimizer_type == "sgd":
            opt = torch.optim.SGD(params, lr=o.lr, weight_decay=o.weight_decay)
        else:
            raise ValueError(f"optimizer_type {o.optimizer_type!r} is not supported on CPU (adam, adamw, sgd)")
        warmup = o.lr_warmup_steps if o.lr_warmup_steps >= 0 else int(o.lr_warmup_steps_ratio * self.total_steps)
        if o.lr_scheduler_type == "cosine":
            sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=warmup, num_training_steps=self.total_steps,
                                                    min_lr_ratio=o.min_lr_ratio)
        else:
            sched = get_constant_schedule_with_warmup(opt, num_warmup_steps=warmup)
        return opt, sched

    def is_alive(self) -> bool:
        return True

    @property
    def train_step_num(self) -> int:
        return self._step

    def get_train_step_num(self) -> int:  # properties are not callable through a Ray actor handle
        return self._step

    # --- one step --------------------------------------------------------------------------------------
    def _log_probs(self, model, mb: dict, temperature: float, with_entropy: bool):
        import torch
        from verl.utils.torch_functional import entropy_from_logits, logprobs_from_logits

        R = mb["responses"].shape[1]
        # fp32 master weights; forward passes in the engine's dtype where it is lower (autocast).
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.dtype == "bfloat16"):
            # Responses are the last R columns: only their R+1 logits are needed (skips most of the LM head).
            out = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"],
                        position_ids=mb["position_ids"], use_cache=False, logits_to_keep=R + 1)
        logits = out.logits[:, :-1, :].float() / temperature  # veRL scales by the rollout temperature
        log_prob = logprobs_from_logits(logits, mb["responses"])
        entropy = entropy_from_logits(logits) if with_entropy else None
        return log_prob, entropy

    def _micro_batches(self, data: dict, keys, size: int | None = None):
        n = data["input_ids"].shape[0]
        size = size or self.micro
        for i in range(0, n, size):
            yield {k: data[k][i:i + size] for k in keys}

    def _epoch(self, model, optimizer, clip: float, batches, loss_fn) -> tuple[dict, float]:
        """One optimizer step over a mini-batch: gradients accumulated over its micro-batches, clipped, and the
        update skipped when their norm is not finite (veRL's optimizer_step). Returns the micro-batches'
        metrics (lists) and the gradient norm."""
        import torch

        optimizer.zero_grad(set_to_none=True)
        metrics: dict[str, list] = {}
        for mb in batches:
            loss, m = loss_fn(mb)
            loss.backward()
            for k, v in m.items():
                metrics.setdefault(k, []).append(v)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        if torch.isfinite(grad_norm):
            optimizer.step()
        return metrics, float(grad_norm)

    def _update_critic(self, data: dict, seq_keys) -> dict:
        """veRL's critic update: ppo_epochs passes over the batch as one mini-batch, the LR schedule stepped once
        per update (TrainingWorker.train_mini_batch). Metrics as veRL reduces them: the loss summed over
        micro-batches (each is normalised by the whole mini-batch), everything averaged over epochs."""
        from rftc_runtime import algorithm
        from rftc_runtime.critic import values

        model, optimizer, scheduler = self.critic
        cfg = self.bound.critic_config
        info = algorithm.global_batch_info(data["response_mask"])
        bf16 = self.dtype == "bfloat16"

        def loss_fn(mb):
            vpreds = values(model, mb, bf16)
            return algorithm.value_loss(self.bound, vpreds, mb["values"], mb["returns"], mb["response_mask"].bool(),
                                        info)

        keys = seq_keys + ("response_mask", "values", "returns")
        per_epoch: dict[str, list] = {}
        for _ in range(cfg.ppo_epochs):
            m, grad_norm = self._epoch(model, optimizer, cfg.optim.clip_grad,
                                       self._micro_batches(data, keys, self.critic_micro), loss_fn)
            m = {k: sum(v) if k == "critic/vf_loss" else sum(v) / len(v) for k, v in m.items()}
            for k, v in {**m, "critic/grad_norm": grad_norm}.items():
                per_epoch.setdefault(k, []).append(v)
        scheduler.step()
        return {**{k: sum(v) / len(v) for k, v in per_epoch.items()}, "critic/lr": scheduler.get_last_lr()[0]}

    def train_step(self, exps: list) -> dict:
        import torch
        from verl import DataProto

        from rftc_runtime import algorithm
        from rftc_runtime.batch import collate

        t0 = time.perf_counter()
        temperature = float(self.s.taskset.temperature) if self.s.taskset else 1.0
        data = collate(exps, self.pad_id)
        seq_keys = ("input_ids", "attention_mask", "position_ids", "responses")
        timings = {}
        if self.ref_model is not None:
            t = time.perf_counter()
            with torch.no_grad():
                data["ref_log_prob"] = torch.cat([self._log_probs(self.ref_model, mb, temperature, False)[0]
                                                  for mb in self._micro_batches(data, seq_keys)])
            timings["time/ref"] = time.perf_counter() - t
        t = time.perf_counter()
        if self.s.raw.get("algorithm", {}).get("bypass_old_logprobs", True) is False:
            with torch.no_grad():
                data["old_log_probs"] = torch.cat([self._log_probs(self.model, mb, temperature, False)[0]
                                                   for mb in self._micro_batches(data, seq_keys)])
        else:  # Trinity's default: the rollout's log-probs are the old log-probs
            data["old_log_probs"] = data["rollout_log_probs"]
        timings["time/old_logprob"] = time.perf_counter() - t

        proto_keys = ["token_level_scores", "response_mask", "old_log_probs", "responses"]
        if "ref_log_prob" in data:
            proto_keys.append("ref_log_prob")
        if self.critic is not None:
            from rftc_runtime.critic import values

            t = time.perf_counter()
            with torch.no_grad():
                data["values"] = torch.cat([values(self.critic[0], mb, self.dtype == "bfloat16")
                                            for mb in self._micro_batches(data, seq_keys + ("response_mask",),
                                                                          self.critic_micro)])
            timings["time/critic"] = time.perf_counter() - t
            proto_keys.append("values")
        proto = DataProto.from_dict(tensors={k: data[k] for k in proto_keys}, non_tensors={"uid": data["uid"]})
        metrics = algorithm.advantages(self.bound, proto)
        data["advantages"] = proto.batch["advantages"]
        mask = data["response_mask"]
        step_metrics: dict[str, float] = {}
        if self.critic is not None:
            t = time.perf_counter()
            data["returns"] = proto.batch["returns"]
            step_metrics.update(self._update_critic(data, seq_keys))
            timings["time/critic"] += time.perf_counter() - t
            ret = data["returns"][mask.bool()]
            step_metrics["critic/returns_mean"] = float(ret.mean()) if ret.numel() else 0.0

        # veRL and Trinity update the actor once the step's number reaches trainer.critic_warmup.
        if self.s.critic is None or self.s.critic.warmup <= self._step + 1:
            t = time.perf_counter()
            step_metrics.update(self._update_actor(data, seq_keys, temperature))
            timings["time/update"] = time.perf_counter() - t
        self._step += 1
        adv = data["advantages"][mask.bool()]
        return {**metrics, **step_metrics, **timings, "train/step": self._step,
                "train/experiences": len(exps), "train/response_tokens": int(mask.sum().item()),
                "train/advantage_mean": float(adv.mean()) if adv.numel() else 0.0,
                "time/train_step": time.perf_counter() - t0}

    def sft_step(self, conversations: list[list[dict]]) -> dict:
        """One SFT step (algorithm_type sft) on a batch of chat conversations: veRL's SFT loss on the response
        tokens, accumulated over micro-batches, one optimizer step."""
        from rftc_runtime import sft
        from rftc_runtime.batch import collate
        from rftc_runtime.experience import Experience

        t0 = time.perf_counter()
        exps = []
        for i, msgs in enumerate(conversations):
            prompt, response = sft.tokenize(self.tokenizer, msgs)
            exps.append(Experience(i, i, prompt, response, [0.0] * len(response), 0.0))
        data = collate(exps, self.pad_id)
        tokens = int(data["response_mask"].sum().item())
        keys = ("input_ids", "attention_mask", "position_ids", "responses", "response_mask")

        def loss_fn(mb):
            log_prob, _ = self._log_probs(self.model, mb, 1.0, False)
            value = sft.loss(log_prob, mb["response_mask"], tokens)
            return value, {"actor/sft_loss": float(value.detach())}

        m, grad_norm = self._epoch(self.model, self.optimizer, self.s.grad_clip,
                                   self._micro_batches(data, keys), loss_fn)
        self.scheduler.step()
        self._step += 1
        return {"actor/sft_loss": sum(m["actor/sft_loss"]), "actor/grad_norm": grad_norm,
                "actor/lr": self.scheduler.get_last_lr()[0], "train/step": self._step,
                "train/experiences": len(exps), "train/response_tokens": tokens,
                "time/train_step": time.perf_counter() - t0}

    def _update_actor(self, data: dict, seq_keys, temperature: float) -> dict:
        from rftc_runtime import algorithm

        cfg = self.bound.actor_config
        cfg.global_batch_info.update(**algorithm.global_batch_info(data["response_mask"]),
                                     loss_scale_factor=cfg.loss_scale_factor)
        want_entropy = self.bound.entropy_coef != 0.0
        loss_keys = seq_keys + ("response_mask", "old_log_probs", "advantages") + (
            ("ref_log_prob",) if "ref_log_prob" in data else ())

        def loss_fn(mb):
            log_prob, entropy = self._log_probs(self.model, mb, temperature, want_entropy)
            return algorithm.actor_loss(self.bound, log_prob, mb["old_log_probs"], mb["advantages"],
                                        mb["response_mask"].bool(), mb.get("ref_log_prob"), entropy)

        step_metrics: dict[str, float] = {}
        for _ in range(self.s.ppo_epochs):
            m, grad_norm = self._epoch(self.model, self.optimizer, self.s.grad_clip,
                                       self._micro_batches(data, loss_keys), loss_fn)
            step_metrics = {**{k: sum(v) for k, v in m.items()}, "actor/grad_norm": grad_norm}
        self.scheduler.step()  # once per training step whatever ppo_epochs is, as veRL's engine worker does
        return {**step_metrics, "actor/lr": self.scheduler.get_last_lr()[0]}

    # --- weights -----------------------------------------------------------------------------------------
    def need_sync(self) -> bool:
        return self.schedule.trainer_needs_sync(self._step)

    def upload_state_dict(self):
        """The weights for the `memory` sync method, in the rollout engine's dtype (Ray puts them in its
        object store; the explorer's workers load them through vLLM's reload path)."""
        import torch

        dtype = getattr(torch, self.dtype)
        return {k: v.detach().to(dtype).clone() for k, v in self.model.state_dict().items()}

    # --- checkpoints ---------------------------------------------------------------------------------------
    def need_save(self) -> bool:
        return self.s.save_interval > 0 and self._step % self.s.save_interval == 0

    def save_checkpoint(self, block_until_saved: bool = False, save_as_hf: bool = False, extra: dict | None = None):
        """Snapshot model, optimizer and counters now; write them in the background."""
        self.wait_for_save()
        snapshot = checkpoints.snapshot(self.model, self.optimizer, self.scheduler, critic=self.critic)
        state = {"train_step": self._step, **(extra or {})}
        target = Path(self.s.checkpoint_job_dir)
        args = (target, self._step, snapshot, state, self.model if save_as_hf else None, self.tokenizer)
        self._save_thread = threading.Thread(target=checkpoints.write, args=args, daemon=False)
        self._save_thread.start()
        if block_until_saved:
            self.wait_for_save()
        return str(checkpoints.step_dir(target, self._step))

    def wait_for_save(self) -> None:
        if self._save_thread is not None:
            self._save_thread.join()
            self._save_thread = None

    def shutdown(self) -> None:
        self.wait_for_save()

