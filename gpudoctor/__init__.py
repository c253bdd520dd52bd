"""gpudoctor: verdicts, evidence and exact fixes for GPU deep-learning environments."""

__version__ = "0.1.0"
