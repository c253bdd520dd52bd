"""A node command that starts like `gpudoctor fleet node` and then hangs: the
collector must record the node as a timeout and stop srun at its deadline."""
import json
import os
import sys
import time

print("@@gpudoctor-node " + json.dumps({"node": os.environ.get("SLURMD_NODENAME", "unknown")}), flush=True)
if os.environ.get("SLURMD_NODENAME") == "n1" or "--all" in sys.argv:
    time.sleep(600)
