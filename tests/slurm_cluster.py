"""A real two-node Slurm cluster on this machine, for the fleet tests.

Debian's slurm-wlm and munge: munged with a freshly generated key on its own
socket, one slurmctld, and two slurmd daemons (`slurmd -N n1`, `-N n2`) on
`NodeName=n[1-2] NodeHostname=<this host> Port=[p-p+1]`. Everything lives in a
temporary directory (config, state, spool, logs, pid files); stop() ends the
daemons it started, by their pid files, and nothing else.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
START_TIMEOUT_S = 45.0


def missing() -> str | None:
    """Why a cluster cannot be started here, or None."""
    if os.geteuid() != 0:
        return "the Slurm test cluster needs root (slurmd runs jobs as their users)"
    for tool in ("munged", "slurmctld", "slurmd", "srun", "sinfo"):
        if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists():
            return f"{tool} is not installed (Debian packages slurm-wlm and munge)"
    return None


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_port_pair() -> int:
    """A port p with p and p+1 free (slurmd Port=[p-p+1] needs a range)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            p = s.getsockname()[1]
        if p + 2 >= 65535:
            continue
        try:
            for q in (p + 1, p + 2):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", q))
            return p
        except OSError:
            continue
    raise RuntimeError("no two consecutive free ports")


CONF = """\
ClusterName=gdtest
SlurmctldHost={host}
SlurmctldPort={ctld_port}
AuthType=auth/munge
AuthInfo=socket={root}/munge.sock
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool/%n
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.%n.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd.%n.log
PlugStackConfig={root}/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SlurmUser=root
SlurmdUser=root
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=n[1-2] NodeHostname={host} Port=[{node_port}-{node_port_2}] CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP
"""


class SlurmCluster:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.conf = root / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.pid_files = [root / "munged.pid", root / "slurmctld.pid", root / "slurmd.n1.pid", root / "slurmd.n2.pid"]

    def _run(self, argv: list[str], timeout: float = 30.0) -> subprocess.CompletedProcess:
        return subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout, check=False)

    def start(self) -> None:
        r = self.root
        for d in ("state", "log", "spool/n1", "spool/n2"):
            (r / d).mkdir(parents=True, exist_ok=True)
        key = r / "munge.key"
        key.write_bytes(os.urandom(1024))  # a fresh key: nothing outside this test can talk to it
        key.chmod(0o600)
        (r / "plugstack.conf").write_text("")
        ctld = _free_port_pair()
        node = _free_port_pair()
        self.conf.write_text(CONF.format(host=socket.gethostname().split(".")[0], root=r, ctld_port=ctld,
                                         node_port=node, node_port_2=node + 1))
        steps = [
            [_tool("munged"), "-f", "-S", str(r / "munge.sock"), f"--key-file={key}",
             f"--log-file={r / 'log/munged.log'}", f"--pid-file={r / 'munged.pid'}", f"--seed-file={r / 'munged.seed'}"],
            [_tool("slurmctld"), "-f", str(self.conf)],
            [_tool("slurmd"), "-f", str(self.conf), "-N", "n1"],
            [_tool("slurmd"), "-f", str(self.conf), "-N", "n2"],
        ]
        for argv in steps:
            p = self._run(argv)
            if p.returncode != 0:
                raise RuntimeError(f"{Path(argv[0]).name} did not start: {p.stderr.strip()} {self.logs()}")
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            p = self._run([_tool("sinfo"), "-h", "-N", "-o", "%N %t"], timeout=10)
            states = dict(line.split() for line in p.stdout.splitlines() if len(line.split()) == 2)
            if states.get("n1") == "idle" and states.get("n2") == "idle":
                return
            time.sleep(0.5)
        raise RuntimeError(f"nodes not idle after {START_TIMEOUT_S:.0f} s: {p.stdout.strip()} {self.logs()}")

    def logs(self) -> str:
        out = []
        for f in sorted((self.root / "log").glob("*.log")):
            lines = f.read_text(errors="replace").splitlines()[-5:]
            out.append(f"[{f.name}] " + " | ".join(lines))
        return " ".join(out)

    def stop(self) -> None:
        """SIGTERM each daemon this cluster started (by pid file), slurmd first; SIGKILL stragglers."""
        pids = []
        for f in reversed(self.pid_files):
            try:
                pid = int(f.read_text().strip())
            except (OSError, ValueError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
                pids.append(pid)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 15
        for pid in pids:
            while time.monotonic() < deadline and _alive(pid):
                time.sleep(0.1)
            if _alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie of ours counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
