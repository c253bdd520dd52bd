"""Fleets: collect one report per node on an existing engine, merge them into one view."""
