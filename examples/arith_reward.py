"""The reward of examples/arith_grpo.sh, in veRL's custom reward function form: 1.0 when the last number in
the reply equals the sum. veRL, rftc run and the Trinity config rftc convert writes all load this file."""


def last_number(data_source, solution_str, ground_truth, extra_info=None) -> float:
    import re

    found = re.findall(r"-?\d+(?:\.\d+)?", solution_str or "")
    return 1.0 if found and float(found[-1]) == float(ground_truth) else 0.0
