"""`gpudoctor lint`: dependency files judged as a described machine plus the
builds they resolve to. Readers turn each file into requirements with lines
(readers_*.py); resolve.py turns those into the framework and companion
builds a fresh install would get, inside a Snapshot of the target machine;
the check rules judge that Snapshot, so lint, install and check agree."""
