"""Runs inside .venv-trinity: a converted config's first training taskset through Trinity-RFT 0.6.0's own
pipeline (load_config + check_and_update, the taskset's FileReader and task formatter, the workflow class it
names, the experience operators of data_processor.experience_pipeline) with a stand-in model that answers every
chat with the given responses. Prints one JSON record: the workflow's class, the chat messages it sent, the
reward and metrics of each response, and how many experiences the operators keep (all of them: one task).

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
        return [Experience(tokens=torch.arange(4 + len(r.split())), prompt_length=3, response_text=r)
                for r in self.responses]


def main(config_path: str, responses: list[str]) -> None:
    from trinity.buffer.buffer import get_buffer_reader
    from trinity.buffer.operators import create_operators
    from trinity.common.config import load_config

    config = load_config(config_path)
    config.check_and_update()
    taskset = config.buffer.explorer_input.tasksets[0]
    reader = get_buffer_reader(taskset)
    task = asyncio.run(reader.read(batch_size=1))[0]
    model = CannedModel(responses)
    workflow = task.to_workflow(model=model)
    workflow.set_repeat_times(len(responses), 0)
    out = workflow.run()
    kept = out
    for op in create_operators(config.data_processor.experience_pipeline.operators):
        kept, _ = asyncio.run(op.process(kept))
    print(json.dumps({"workflow": f"{type(workflow).__module__}.{type(workflow).__name__}",
                      "messages": model.sent[0], "rewards": [e.reward for e in out],
                      "metrics": [e.metrics for e in out], "kept": len(kept)}, default=str))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
