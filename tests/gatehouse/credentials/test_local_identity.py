"""Local mode's remembered identity: the address wins over the cookie, the roster over both,
and the cookie's script cannot be broken out of by a name."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

from gatehouse.credentials.local_identity import COOKIE, MAX_AGE_SECONDS, cookie_script, remembered_user

ROSTER = ["admin", "operator", "reviewer", "reviewer2"]


def test_the_name_in_the_address_wins_over_the_cookie() -> None:
    assert remembered_user("admin", "reviewer", ROSTER) == "admin"


def test_the_cookie_names_the_person_when_the_address_does_not() -> None:
    assert remembered_user(None, "reviewer", ROSTER) == "reviewer"
    assert remembered_user("", "reviewer", ROSTER) == "reviewer"


def test_a_name_outside_the_roster_is_ignored_wherever_it_comes_from() -> None:
    assert remembered_user("mallory", "reviewer", ROSTER) == "reviewer"
    assert remembered_user(None, "mallory", ROSTER) is None
    assert remembered_user("mallory", "eve", ROSTER) is None
    assert remembered_user(None, None, ROSTER) is None


def test_the_cookie_is_read_as_the_script_wrote_it_uri_encoded() -> None:
    roster = ["Zoë Smith; admin=1"]
    assert remembered_user(None, quote("Zoë Smith; admin=1"), roster) == "Zoë Smith; admin=1"


def test_the_script_sets_a_strict_cookie_for_the_whole_origin() -> None:
    script = cookie_script("reviewer")
    assert script.startswith("<script>") and script.endswith("</script>")
    assert json.dumps(COOKIE) in script
    assert 'encodeURIComponent("reviewer")' in script
    assert "path=/;" in script
    assert f"max-age={MAX_AGE_SECONDS};" in script
    assert "SameSite=Strict" in script


def test_no_name_can_end_the_script_or_its_string() -> None:
    name = '</script><img src=x onerror=alert(1)>"; document.cookie="x'
    script = cookie_script(name)
    inner = script.removeprefix("<script>").removesuffix("</script>")
    assert "<" not in inner
    literal = re.search(r"encodeURIComponent\((.*)\) \+", inner)
    assert literal is not None
    assert json.loads(literal.group(1)) == name
