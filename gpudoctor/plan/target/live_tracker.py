"""Live tensor storage per category, for exact_script.py (run by the TARGET
interpreter; standard library and torch only, Python 3.8+). Imported by
exact_script.py after torch has imported, never by gpudoctor."""

import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

CATEGORIES = ("parameters", "buffers", "inputs", "gradients", "optimizer", "activations", "temporary")


class LiveTracker(TorchDispatchMode):
    """Live bytes per category, peak total and the breakdown at the peak.

    A storage is counted once however many tensors view it, from the op that
    creates it until it is freed (a weakref finalizer on the storage).
    """

    def __init__(self, round_to=1):
        super().__init__()
        self.round_to = round_to
        self.cat = {}  # storage id -> (category, nbytes)
        self.totals = dict((c, 0) for c in CATEGORIES)
        self.live = 0
        self.phase = "setup"
        self.phase_peaks = {}  # phase -> (live bytes, totals per category at that moment)

    def reset_peaks(self):
        self.phase_peaks = {}

    def _size(self, st):
        n = st.nbytes()
        r = self.round_to
        return ((n + r - 1) // r) * r if r > 1 else n

    def track(self, t, category):
        if not isinstance(t, torch.Tensor):
            return
        # A view shares its base's storage; fake tensors may give a view a storage
        # object of its own, so always look at the base.
        while t._is_view() and t._base is not None:
            t = t._base
        try:
            st = t.untyped_storage()
        except Exception:  # noqa: BLE001 - sparse/nested tensors have no plain storage
            return
        key = id(st)
        old = self.cat.get(key)
        if old is not None:
            # A weight saved for backward stays a parameter: only relabel upwards.
            if CATEGORIES.index(category) < CATEGORIES.index(old[0]):
                self.totals[old[0]] -= old[1]
                self.totals[category] += old[1]
                self.cat[key] = (category, old[1])
            return
        n = self._size(st)
        self.cat[key] = (category, n)
        self.totals[category] += n
        self.live += n
        weakref.finalize(st, self._free, key)
        self._check_peak()

    def _free(self, key):
        entry = self.cat.pop(key, None)
        if entry is not None:
            self.totals[entry[0]] -= entry[1]
            self.live -= entry[1]

    def _check_peak(self):
        best = self.phase_peaks.get(self.phase)
        if best is None or self.live > best[0]:
            self.phase_peaks[self.phase] = (self.live, dict(self.totals))

    def peak(self):
        """(phase, live bytes, totals) of the highest peak."""
        if not self.phase_peaks:
            return "", self.live, dict(self.totals)
        phase = max(self.phase_peaks, key=lambda k: self.phase_peaks[k][0])
        return (phase,) + self.phase_peaks[phase]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if getattr(func, "is_view", False):
            # A view allocates nothing; fake tensors may still hand it a storage
            # object of its own, which would count the memory twice.
            return out
        for t in tree_flatten(out)[0]:
            self.track(t, "temporary")
        return out
