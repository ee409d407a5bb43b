"""The Trinity-RFT experience operator ``rftc convert`` names for the DAPO recipe's dynamic sampling
(``algorithm.filter_groups``): RayDAPOTrainer's own rule, on the metric veRL names. Trinity's
dapo_dynamic_sampling keeps groups with some but not all responses above a threshold, which equals veRL's rule
only for a metric of two values; this one keeps a prompt's group when the metric's values differ (np.std > 0) or
the group has one response, as veRL does. Imported only by Trinity (by this dotted path): it needs trinity-rft."""

from __future__ import annotations

from typing import Dict, List, Tuple

from trinity.buffer.operators import ExperienceOperator
from trinity.common.experience import Experience, group_by

from rftc.plugins.groups import keeps, metric_value


class VerlFilterGroups(ExperienceOperator):
    """Drops the task groups whose ``metric`` does not vary (veRL's filter_groups; the trainer then waits for
    more experiences, as RayDAPOTrainer generates another batch)."""

    def __init__(self, metric: str):
        self.metric = metric

    def process(self, exps: List[Experience]) -> Tuple[List[Experience], Dict]:
        kept: List[Experience] = []
        groups = group_by(exps, id_type="task")
        kept_groups = 0
        for group in groups.values():
            if keeps([metric_value(self.metric, e.reward, e.metrics) for e in group]):
                kept.extend(group)
                kept_groups += 1
        return kept, {"filter_groups/kept_groups": kept_groups, "filter_groups/groups": len(groups),
                      "filtered_count": len(exps) - len(kept)}
