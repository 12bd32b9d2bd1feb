"""axe-core (node_modules, pinned in package.json) run in a page: the WCAG 2.0 and 2.1 A and AA rules (issue 44).

``violations(page)`` injects axe into the page as it stands and returns what it finds, one line a rule with the
elements it names and the fix it proposes; ``assert_accessible(page, state)`` fails with those lines.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# JS: run axe on the whole document with the WCAG A and AA rules; the violations, each with its elements
RUN = """async tags => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160), fix: n.failureSummary}))}));
}"""


def violations(page) -> list[dict]:
    """axe's WCAG 2.0/2.1 A and AA violations on ``page`` as it is now."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN, TAGS)


def report(found: list[dict]) -> str:
    lines = []
    for v in found:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}, {len(v['nodes'])} element(s)")
        lines.extend(f"    {n['target']}: {n['fix'].splitlines()[-1].strip() if n['fix'] else ''}"
                     f"  [{n['html']}]" for n in v["nodes"][:6])
    return "\n".join(lines)


def assert_accessible(page, state: str) -> None:
    found = violations(page)
    assert not found, f"{state}: {sum(len(v['nodes']) for v in found)} element(s) break WCAG 2.1 AA\n" + report(found)
