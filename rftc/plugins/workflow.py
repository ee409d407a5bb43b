"""The Trinity-RFT workflow ``rftc convert`` names for veRL's rule rewards
(``default_workflow_type: rftc.trinity.verl_workflow.VerlRewardWorkflow``; Trinity imports it by this dotted
path, so rftc must be installed beside trinity-rft). Trinity's own math workflows add a system prompt and score
with their own functions (math_workflow: the R1 prompt and a <think>/<answer> format reward); this one keeps
veRL's semantics: the prompt column's chat messages as they are, and :class:`rftc.plugins.reward.VerlReward` on
each response (the row's data source, ``reward_model.ground_truth``, the custom function or dapo manager the
launch named, from ``workflow_args``). Imported only by Trinity: it needs trinity-rft and verl."""

from __future__ import annotations

from typing import List

from trinity.common.experience import Experience
from trinity.common.workflows.workflow import SimpleWorkflow, Task

from rftc.plugins.reward import VerlReward, chat_messages


class VerlRewardWorkflow(SimpleWorkflow):
    """One chat turn per task, ``repeat_times`` samples, each rewarded as veRL's reward manager would."""

    def reset(self, task: Task):
        self.format_args = task.format_args
        self.raw_task = task.raw_task or {}
        self.chat = task_chat(task)
        self.reward = VerlReward(task.workflow_args)

    def run(self) -> List[Experience]:
        responses = self.model.chat(self.chat, **self.rollout_args)
        for i, response in enumerate(responses):
            length = len(response.tokens) - response.prompt_length if response.tokens is not None else 0
            response.reward, extra = self.reward(self.raw_task, response.response_text or "", length)
            response.metrics = {**(response.metrics or {}), **extra}
            response.eid.run = i + self.run_id_base
        return responses


def task_chat(task: Task) -> list[dict]:
    """The task's chat: its prompt column's messages (a string is one user message), the format's system prompt
    first."""
    raw = task.raw_task or {}
    prompt = raw.get(task.format_args.prompt_key)
    if prompt is None:
        raise ValueError(f"the task has no prompt under {task.format_args.prompt_key!r} "
                         f"(its keys: {', '.join(map(str, raw))})")
    return chat_messages(prompt, task.format_args.system_prompt)
