"""The Trinity-RFT workflow ``rftc convert`` names for veRL's on-policy distillation
(``default_workflow_type: rftc.trinity.verl_distill_workflow.VerlDistillWorkflow``; Trinity imports it by this
dotted path, so rftc must be installed beside trinity-rft). Trinity's on_policy_distill_workflow sends the prompt
column as the text of one user message; this one sends veRL's chat messages (rftc.plugins.workflow.task_chat), as
veRL's agent loop does, and is Trinity's otherwise. Imported only by Trinity: it needs trinity-rft's model
wrapper (vLLM)."""

from __future__ import annotations

from trinity.common.workflows.on_policy_distill_workflow import OnPolicyDistillWorkflow
from trinity.common.workflows.workflow import Task

from rftc.plugins.workflow import task_chat


class VerlDistillWorkflow(OnPolicyDistillWorkflow):
    """Trinity's on-policy distillation workflow (the student samples ``repeat_times`` responses, the first
    auxiliary model, the teacher, gives the log-prob of each of their tokens at ``workflow_args.temperature``,
    default 1.0, stored for the on_policy_distill advantage; the reward is 0) on veRL's chat messages, as veRL's
    agent loop sends them to the student and the teacher."""

    def reset(self, task: Task):
        super().reset(task)
        self.chat = task_chat(task)

    def format_messages(self):
        return self.chat
