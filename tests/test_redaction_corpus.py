"""The leak corpus through the redactor: every leak caught, every look-alike unchanged."""

from redaction_corpus import entries, leaks, lookalikes, original, redact
from webtraj.model.redact import REDACTED, Redactor


def test_corpus_has_leaks_and_lookalikes_of_every_kind():
    kinds = {(e["leak"], e["where"]) for e in entries()}
    for where in ("url", "header", "body", "text"):
        assert (True, where) in kinds and (False, where) in kinds
    assert {(True, "cookie"), (True, "set_cookie")} <= kinds


def test_every_leak_is_caught():
    r = Redactor(include_env=False)
    missed = {e["id"]: out for e in leaks() if e["secret"] in (out := redact(r, e))}
    assert missed == {}
    assert all(REDACTED in redact(r, e) for e in leaks())


def test_every_lookalike_is_kept_as_it_is():
    r = Redactor(include_env=False)
    changed = {e["id"]: out for e in lookalikes() if (out := redact(r, e)) != original(e)}
    assert changed == {}


def test_redacted_text_keeps_its_ordinary_parts():
    r = Redactor(include_env=False)
    [callback] = [e for e in leaks() if "/callback#" in e.get("url", "")]
    assert redact(r, callback).endswith("#access_token=[REDACTED]&token_type=bearer"
                                        "&expires_in=3600")
    [multipart] = [e for e in leaks() if "name=\"API_KEY\"" in e.get("text", "")]
    assert "basic insurance" in redact(r, multipart)
