"""The README stays true: the policy it documents is the policy that ships."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_shows_the_shipped_default_policy_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    policy = (ROOT / "policies" / "default.toml").read_text(encoding="utf-8")

    assert f"```toml\n{policy}```" in readme
