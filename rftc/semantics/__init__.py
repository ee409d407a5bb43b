"""The semantic model of a training run: the quantities that decide what is trained, each with where it came from,
computed the same way from a veRL launch (its effective config, by its release's rules) and from a Trinity-RFT
config (by Trinity's own expansion into the veRL config it runs). ``rftc diff`` compares two; the conversion tests
compare a script's with its conversion's. docs/diff.md defines each quantity and its formula on each side. An SFT
run has quantities of its own (model.SftRun: sft_verl, sft_trinity); the two kinds are never compared.

    run = from_verl(eff)                   # rftc.semantics.verl
    run = from_trinity(view(cfg, doc))     # rftc.semantics.trinity
    differences(run_a, run_b)              # [(Quantity, Value, Value)]
"""
