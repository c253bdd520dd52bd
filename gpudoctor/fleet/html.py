"""Fleet report as one self-contained HTML file: inline CSS, no script, no
network, readable on a phone and printable. Built from fleet_data only."""

from __future__ import annotations

from html import escape

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.lead{color:#57606a;margin:0 0 16px}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #d0d7de;border-radius:8px;padding:10px 16px;min-width:110px}
.card b{display:block;font-size:24px}
table{border-collapse:collapse;width:100%;margin:4px 0}th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #eaeef2;
vertical-align:top}th{background:#f6f8fa;font-weight:600}
.v{font-weight:600;border-radius:10px;padding:1px 8px;font-size:12px;white-space:nowrap}
.pass{background:#dafbe1;color:#116329}.fail{background:#ffebe9;color:#a40e26}.error{background:#fff8c5;color:#7d4e00}
.sev-error{color:#a40e26;font-weight:600}.sev-warning{color:#7d4e00;font-weight:600}.sev-info{color:#57606a}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;padding:1px 4px;border-radius:4px}
.muted{color:#57606a}
"""

LABEL = {"pass": "pass", "fail": "fail", "error": "no report"}


def _v(verdict: str) -> str:
    return f'<span class="v {escape(verdict)}">{escape(LABEL.get(verdict, verdict))}</span>'


def _worst(node: dict) -> str:
    failing = [f for f in node["findings"] if f["severity"] == "error"]
    if failing:
        rest = f' <span class="muted">(+{len(failing) - 1} more)</span>' if len(failing) > 1 else ""
        return f"<code>{escape(failing[0]['code'])}</code> {escape(failing[0]['title'] or '')}{rest}"
    return f'<span class="muted">{escape(node["detail"] or "no error findings")}</span>'


def render_html(data: dict) -> str:
    c = data["summary"]
    cards = "".join(f'<div class="card"><b>{c[k]}</b>{label}</div>' for k, label in
                    (("nodes", "nodes"), ("pass", "pass"), ("fail", "fail"), ("error", "no report")))
    cards += f'<div class="card"><b>{len(data["drift"])}</b>facts drift</div>'
    nodes = "".join(f"<tr><td>{escape(n['name'])}</td><td>{_v(n['verdict'])}</td><td>{_worst(n)}</td>"
                    f"<td>{escape(n['facts'].get('driver.version', '—'))}</td>"
                    f"<td>{escape(n['facts'].get('gpus.models', '—'))}</td></tr>" for n in data["nodes"])
    groups = "".join(f"<tr><td>{i}</td><td>{len(g['nodes'])}</td><td>{escape(', '.join(g['nodes']))}</td>"
                     f"<td>{_v(g['verdict'])}</td></tr>" for i, g in enumerate(data["groups"], 1))
    if data["drift"]:
        drift = "<table><tr><th>Fact</th><th>Value</th><th>Nodes</th></tr>" + "".join(
            f"<tr><td><code>{escape(d['fact'])}</code></td><td>{escape(v['value'])}</td>"
            f"<td>{escape(', '.join(v['nodes']))}</td></tr>" for d in data["drift"] for v in d["values"]) + "</table>"
    else:
        drift = "<p>None: every node with a report has the same driver, CUDA, cuDNN, frameworks and GPUs.</p>"
    if data["findings_by_code"]:
        findings = "<table><tr><th>Code</th><th>Severity</th><th>Nodes</th><th>Finding</th></tr>" + "".join(
            f"<tr><td><code>{escape(f['code'])}</code></td><td class=\"sev-{escape(str(f['severity']))}\">"
            f"{escape(str(f['severity']))}</td><td>{len(f['nodes'])}: {escape(', '.join(f['nodes']))}</td>"
            f"<td>{escape(f['title'] or '')}</td></tr>" for f in data["findings_by_code"]) + "</table>"
    else:
        findings = "<p>None.</p>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>gpudoctor fleet: {c['nodes']} nodes</title><style>{CSS}</style></head>
<body>
<h1>gpudoctor fleet report</h1>
<p class="lead">gpudoctor {escape(data['gpudoctor_version'])} · {c['nodes']} nodes</p>
<div class="cards">{cards}</div>
<h2>Nodes</h2>
<table><tr><th>Node</th><th>Verdict</th><th>Worst finding or reason</th><th>Driver</th><th>GPUs</th></tr>{nodes}</table>
<h2>Groups of identical nodes</h2>
<table><tr><th>#</th><th>Count</th><th>Nodes</th><th>Verdict</th></tr>{groups}</table>
<h2>Drift</h2>
{drift}
<h2>Findings by code</h2>
{findings}
</body></html>
"""
