"""`gpudoctor plan`: memory and throughput model, GPU ranking, cost.

models (what is trained) -> job (how) -> memory (peak per GPU) -> compute
(step time) -> prices (cost) -> ranking (per GPU, what makes it fit) ->
planner (one Plan, its JSON) -> render (rich view). exact.py runs
exact_script.py in the target interpreter for measured memory.
"""
