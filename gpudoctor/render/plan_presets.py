"""`gpudoctor plan --list`: the model presets, as a table or as JSON."""

from __future__ import annotations


def presets_data(rows) -> list[dict]:
    return [{"name": s.name, "family": s.family, "params": s.params, "aliases": list(s.aliases), "source": s.source}
            for s in rows]


def _shape(s) -> str:
    if s.has_shape:
        return (f"L{s.layers} h{s.hidden} a{s.heads}" + (f"/{s.kv_heads}kv" if s.kv_heads else "")
                + (f" ffn{s.ffn} V{s.vocab}" if s.vocab else f" ffn{s.ffn}"))
    return f"{s.image_size} px" if s.image_size else (f"seq {s.max_seq}" if s.max_seq else "")


def render_presets(rows, console) -> None:
    from rich.table import Table

    t = Table(title="gpudoctor plan presets")
    for col in ("name", "family", "params", "shape", "source"):
        t.add_column(col, overflow="fold")
    for s in rows:
        t.add_row(s.name + (f"\n({', '.join(s.aliases)})" if s.aliases else ""), s.family,
                  f"{s.params / 1e6:,.1f}M", _shape(s), s.source.split(";")[0].split(" (")[0])
    console.print(t)
