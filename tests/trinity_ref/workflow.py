"""Runs inside .venv-trinity: a converted config's first training taskset through Trinity-RFT 0.6.0's own
pipeline (load_config + check_and_update, the taskset's FileReader and task formatter, the workflow class it
names, the experience operators of data_processor.experience_pipeline) with a stand-in model that answers every
chat with the given responses, and a stand-in for each auxiliary model whose log-prob of token i of a sequence is
-i / 100 (a distillation workflow's teacher). Prints one JSON record: the workflow's class, the chat messages it
sent, the reward and metrics of each response, how many experiences the operators keep (all of them: one task),
the teacher log-probs each experience holds and the temperature each teacher call asked for.

    python workflow.py CONFIG.yaml RESPONSE [RESPONSE ...]
"""

from __future__ import annotations

import asyncio
import json
import sys

import torch


class CannedModel:
    """The ModelWrapper surface SimpleWorkflow uses: chat(messages, **rollout_args) -> experiences."""

    def __init__(self, responses: list[str]):
        self.responses, self.sent = responses, []

    def chat(self, messages, **_):
        from trinity.common.experience import Experience

        self.sent.append(messages)
        return [Experience(tokens=torch.arange(4 + len(r.split())), prompt_length=3, response_text=r,
                           logprobs=torch.zeros(1 + len(r.split()))) for r in self.responses]

    async def chat_async(self, messages, **kwargs):
        return self.chat(messages, **kwargs)


class CannedTeacher:
    """The ModelWrapper surface a distillation workflow uses of its teacher: logprobs_async(tokens, temperature)
    -> the log-prob of each token after the first."""

    def __init__(self):
        self.temperatures = []

    async def logprobs_async(self, tokens, temperature=None):
        self.temperatures.append(temperature)
        return -torch.arange(1, len(tokens), dtype=torch.float32) / 100

    def get_openai_async_client(self):
        return None

    def get_openai_client(self):
        return None


def _stand_ins() -> None:
    """The reference environment holds Trinity's config path, not its inference stack: where the modules Trinity's
    distillation workflow imports for the real model wrapper (vLLM, httpx) and for its math variant's scorer
    (word2number) do not import, empty ones stand in for them, as CannedModel and CannedTeacher for the models."""
    import importlib
    import types

    for name, attr in (("trinity.common.models.model", "ModelWrapper"),
                       ("trinity.common.rewards.qwen25_eval", "verify_math_answer")):
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
            setattr(sys.modules[name], attr, None)


def main(config_path: str, responses: list[str]) -> None:
    _stand_ins()
    from trinity.buffer.buffer import get_buffer_reader
    from trinity.buffer.operators import create_operators
    from trinity.common.config import load_config

    config = load_config(config_path)
    config.check_and_update()
    taskset = config.buffer.explorer_input.tasksets[0]
    reader = get_buffer_reader(taskset)
    task = asyncio.run(reader.read(batch_size=1))[0]
    model = CannedModel(responses)
    teachers = [CannedTeacher() for _ in config.explorer.auxiliary_models]
    workflow = task.to_workflow(model=model, auxiliary_models=teachers or None)
    workflow.set_repeat_times(len(responses), 0)
    out = asyncio.run(workflow.run_async()) if workflow.is_async else workflow.run()
    kept = out
    for op in create_operators(config.data_processor.experience_pipeline.operators):
        kept, _ = asyncio.run(op.process(kept))
    print(json.dumps({"workflow": f"{type(workflow).__module__}.{type(workflow).__name__}",
                      "messages": model.sent[0], "rewards": [e.reward for e in out],
                      "metrics": [e.metrics for e in out], "kept": len(kept),
                      "teacher_logprobs": [None if e.teacher_logprobs is None else e.teacher_logprobs.tolist()
                                           for e in out],
                      "temperatures": [t.temperatures for t in teachers]}, default=str))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
