"""Fleet report as text and markdown, from fleet_data (only display)."""

from __future__ import annotations

from gpudoctor.render.markdown import _cell

MARK = {"pass": "ok", "fail": "FAIL", "error": "ERROR"}


def _headline(data: dict) -> str:
    c = data["summary"]
    return (f"{c['nodes']} node{'s' * (c['nodes'] != 1)}: {c['pass']} pass, {c['fail']} fail, "
            f"{c['error']} without a report; {len(data['groups'])} group{'s' * (len(data['groups']) != 1)} "
            f"of identical nodes; {len(data['drift'])} fact{'s' * (len(data['drift']) != 1)} drift")


def _worst(node: dict) -> str:
    failing = [f for f in node["findings"] if f["severity"] == "error"]
    if failing:
        f = failing[0]
        more = f" (+{len(failing) - 1})" if len(failing) > 1 else ""
        return f"{f['code']} {f['title']}{more}"
    return node["detail"] or "no error findings"


def render_text(data: dict) -> str:
    out = [f"gpudoctor fleet: {_headline(data)}", "", "Nodes"]
    width = max((len(n["name"]) for n in data["nodes"]), default=4)
    for n in data["nodes"]:
        out.append(f"  {n['name']:<{width}}  {MARK[n['verdict']]:<5}  {_worst(n)}".rstrip())
    out += ["", "Groups of identical nodes"]
    for i, g in enumerate(data["groups"], 1):
        out.append(f"  {i}. {len(g['nodes'])} × {g['verdict']}: {', '.join(g['nodes'])}")
    out += ["", "Drift"]
    if not data["drift"]:
        out.append("  none: every node with a report has the same driver, CUDA, cuDNN, frameworks and GPUs")
    for d in data["drift"]:
        out.append(f"  {d['fact']}: " + "; ".join(f"{v['value']} on {', '.join(v['nodes'])}" for v in d["values"]))
    out += ["", "Findings by code"]
    if not data["findings_by_code"]:
        out.append("  none")
    for f in data["findings_by_code"]:
        out.append(f"  {f['code']} {f['severity']:<7} {len(f['nodes'])} node{'s' * (len(f['nodes']) != 1)}: "
                   f"{f['title']} ({', '.join(f['nodes'])})")
    return "\n".join(out) + "\n"


def render_markdown(data: dict) -> str:
    out = [f"## gpudoctor fleet: {_headline(data)}", "", "### Nodes", "",
           "| Node | Verdict | Worst finding or reason |", "|---|---|---|"]
    out += [f"| {_cell(n['name'])} | {MARK[n['verdict']]} | {_cell(_worst(n))} |" for n in data["nodes"]]
    out += ["", "### Groups of identical nodes", "", "| # | Nodes | Verdict |", "|---|---|---|"]
    out += [f"| {i} | {_cell(', '.join(g['nodes']))} | {g['verdict']} |" for i, g in enumerate(data["groups"], 1)]
    out += ["", "### Drift", ""]
    if data["drift"]:
        out += ["| Fact | Value | Nodes |", "|---|---|---|"]
        for d in data["drift"]:
            out += [f"| {_cell(d['fact'])} | {_cell(v['value'])} | {_cell(', '.join(v['nodes']))} |"
                    for v in d["values"]]
    else:
        out.append("None: every node with a report has the same driver, CUDA, cuDNN, frameworks and GPUs.")
    out += ["", "### Findings by code", ""]
    if data["findings_by_code"]:
        out += ["| Code | Severity | Nodes | Finding |", "|---|---|---|---|"]
        out += [f"| {f['code']} | {f['severity']} | {_cell(', '.join(f['nodes']))} | {_cell(f['title'])} |"
                for f in data["findings_by_code"]]
    else:
        out.append("None.")
    return "\n".join(out) + "\n"
