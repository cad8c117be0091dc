import base64
import json
import re
from urllib.parse import quote, quote_plus

import orjson

from factories import make_trajectory
from webtraj.model import RunInfo
from webtraj.model.redact import REDACTED, Redactor
from webtraj.report.html import write_report
from webtraj.store import RunStore

API_KEY = "sk-live-9f8e7d6c5b4a3210"
BEARER = "eyJhbGciOiJIUzI1NiJ9.secret-bearer-token"
COOKIE_VALUE = "sessid-77aa88bb99cc"
SET_COOKIE_VALUE = "refresh-1234abcd5678"
PROXY_PW = "cHJveHk6cGFzc3dvcmQ="


def _har() -> dict:
    return {"log": {"version": "1.2", "entries": [{
        "request": {
            "method": "GET", "url": f"http://127.0.0.1:9000/api?key={API_KEY}",
            "headers": [{"name": "Authorization", "value": f"Bearer {BEARER}"},
                        {"name": "Cookie", "value": f"sid={COOKIE_VALUE}"},
                        {"name": "Proxy-Authorization", "value": f"Basic {PROXY_PW}"},
                        {"name": "Accept", "value": "text/html"}],
            "cookies": [{"name": "sid", "value": COOKIE_VALUE}],
            "queryString": [{"name": "key", "value": API_KEY}]},
        "response": {
            "status": 200,
            "headers": [{"name": "Set-Cookie", "value": f"rt={SET_COOKIE_VALUE}; HttpOnly"}],
            "cookies": [{"name": "rt", "value": SET_COOKIE_VALUE}],
            "content": {"text": f"echo Authorization: Bearer {BEARER}"}},
    }]}}


def test_no_secret_reaches_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    root = tmp_path / "run"
    info = RunInfo(name="secret-run", results={
        "llm": {"base_url": "http://127.0.0.1:8000/v1", "api_key": API_KEY},
        "headers": {"Authorization": f"Bearer {BEARER}"},
        "note": f"called with key {API_KEY}"})
    traj = make_trajectory("t-secret")
    traj = traj.model_copy(update={
        "answer": f"the token is {API_KEY}",
        "metadata": {"cookie": f"sid={COOKIE_VALUE}", "request_headers": {
            "Cookie": f"sid={COOKIE_VALUE}", "Set-Cookie": f"rt={SET_COOKIE_VALUE}"}}})
    with RunStore.create(root, info) as store:
        store.add_trajectory(traj, {"network.har": orjson.dumps(_har()),
                                    "agent_log.json": orjson.dumps({"x-api-key": API_KEY})})
        store.update_info(command=f"webtraj run --llm api_key={API_KEY}")

    secrets = [API_KEY, BEARER, COOKIE_VALUE, SET_COOKIE_VALUE, PROXY_PW]
    files = [p for p in root.rglob("*") if p.is_file()]
    assert len(files) >= 4
    for path in files:
        data = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in data, f"{secret} found in {path}"

    har = orjson.loads((root / "trajectories" / traj.trajectory_id / "network.har").read_bytes())
    headers = {h["name"]: h["value"] for h in har["log"]["entries"][0]["request"]["headers"]}
    assert headers["Authorization"] == REDACTED
    assert headers["Accept"] == "text/html"  # ordinary headers are kept
    with RunStore.open(root) as store:
        assert store.load_trajectory(traj.trajectory_id).steps[0].reasoning == "step 0"


# An environment secret with the characters that change under encoding.
ENV_SECRET = "Zq8/+vK3=mP/x+7Lw9"
SPACED_SECRET = "open sesame/2026+x"


def _encodings(secret: str) -> list[str]:
    pct = quote(secret, safe="")
    b64 = base64.b64encode(secret.encode()).decode()
    url64 = base64.urlsafe_b64encode(secret.encode()).decode()
    return [secret, pct, re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), pct),
            quote_plus(secret), b64, b64.rstrip("="), url64, url64.rstrip("="),
            json.dumps(secret)[1:-1].replace("/", "\\/")]


def test_every_encoding_of_a_known_secret_is_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVICE_TOKEN", ENV_SECRET)
    monkeypatch.setenv("DB_PASSWORD", SPACED_SECRET)
    basic = base64.b64encode(f"admin:{ENV_SECRET}".encode()).decode()
    forms = _encodings(ENV_SECRET) + _encodings(SPACED_SECRET)
    text = " | ".join(forms) + f" | creds {basic} | " + json.dumps({"k": ENV_SECRET})
    url = (f"http://127.0.0.1:9000/cb?next={quote(ENV_SECRET, safe='')}"
           f"&q={quote_plus(SPACED_SECRET)}")
    traj = make_trajectory("t-enc")
    traj = traj.model_copy(update={"answer": text, "steps": tuple(
        s.model_copy(update={"observation": s.observation.model_copy(update={"url": url})})
        for s in traj.steps)})
    har = {"log": {"entries": [{"request": {"method": "GET", "url": url, "headers": [],
                                            "queryString": []},
                                "response": {"content": {"mimeType": "text/html",
                                                         "text": text}}}]}}
    root = tmp_path / "run"
    with RunStore.create(root, RunInfo(name="enc")) as store:
        store.add_trajectory(traj, {"network.har": orjson.dumps(har)})
        write_report(store)
    assert (root / "report.html").exists()
    for path in (p for p in root.rglob("*") if p.is_file() and p.suffix != ".sqlite"):
        data = path.read_text(errors="replace")
        for form in forms + [basic[8:24]]:
            assert form not in data, f"{form!r} found in {path.name}"
    stored = RunStore.open(root).load_trajectory(traj.trajectory_id)
    assert stored.answer.count(REDACTED) >= len(forms)


def test_credential_named_headers_params_and_fields_are_redacted():
    values = [f"v{i}-{'q' * 12}-{i}" for i in range(12)]
    har = {"log": {"entries": [{"request": {
        "method": "POST",
        "url": f"http://127.0.0.1:9000/api?access_token={values[0]}&page=2&token={values[1]}",
        "headers": [{"name": "X-Auth-Token", "value": values[2]},
                    {"name": "X-CSRF-Token", "value": values[3]},
                    {"name": "X-Api-Key", "value": values[4]},
                    {"name": "Accept", "value": "text/html"}],
        "queryString": [{"name": "access_token", "value": values[0]},
                        {"name": "api_key", "value": values[5]},
                        {"name": "page", "value": "2"}],
        "postData": {"mimeType": "application/x-www-form-urlencoded",
                     "text": f"user=ann&password={values[6]}&csrf_token={values[7]}",
                     "params": [{"name": "password", "value": values[6]},
                                {"name": "user", "value": "ann"}]}},
        "response": {"content": {"mimeType": "application/json", "text": json.dumps(
            {"refresh_token": values[8], "items": [{"apiKey": values[9], "title": "Tea"}],
             "next": f"/feed?cursor=7&api_key={values[10]}"})}}}]}}
    out = Redactor(include_env=False).data(har)
    dumped = json.dumps(out)
    for v in values[:11]:
        assert v not in dumped
    req = out["log"]["entries"][0]["request"]
    assert req["url"] == ("http://127.0.0.1:9000/api?access_token=[REDACTED]&page=2"
                          "&token=[REDACTED]")
    assert {h["name"]: h["value"] for h in req["headers"]}["Accept"] == "text/html"
    assert {q["name"]: q["value"] for q in req["queryString"]}["page"] == "2"
    assert req["postData"]["text"] == "user=ann&password=[REDACTED]&csrf_token=[REDACTED]"
    body = json.loads(out["log"]["entries"][0]["response"]["content"]["text"])
    plain = {"mimeType": "application/json", "text": '{ "title": "Tea",  "n": 2 }'}
    assert Redactor(include_env=False).data(plain) == plain  # untouched, spacing included
    assert body["items"][0]["title"] == "Tea" and body["next"].startswith("/feed?cursor=7&")
    # In any text: URLs with credential parameters and userinfo, header lines.
    r = Redactor(include_env=False)
    assert r.text(f"see https://ann:{values[11]}@example.com/x?sig=1&api_key=k123456&page=2") == (
        "see https://[REDACTED]@example.com/x?sig=[REDACTED]&api_key=[REDACTED]&page=2")
    assert values[2] not in r.text(f"sent X-Auth-Token: {values[2]} to the server")
    assert r.text("Authorization: Bearer abc.def-123") == "Authorization: [REDACTED]"


# Ordinary prose, including every word a credential rule could key on.
_PROSE = [
    "Prices include basic insurance.",
    "Basic insurance covers collision damage only.",
    "The basic plan includes two checked bags.",
    "Bearer bonds were popular in the nineteenth century.",
    "The flag bearer led the parade down Main Street.",
    "Each token can be exchanged for one free ride on the tram.",
    "Keep your secret recipe in a safe place.",
    "Forgot your password? Reset it from the account page.",
    "Cookie settings: we use cookies to improve your experience.",
    "Authorization: the hotel will place a hold on your card at check-in.",
    "Key: a star marks family-friendly rooms.",
    "Cookie: chocolate chip, baked fresh every morning.",
    "Token: a small souvenir given to every guest.",
    "The key is at the front desk; ask for room 12.",
    "Authorization may take up to 48 hours for international cards.",
    "Session times: 10:00, 12:30 and 15:00.",
    "Basic Economy fares do not include a seat selection.",
    "Bearer of this voucher is entitled to one breakfast.",
    "Your booking key is printed on the confirmation email.",
    "Secret Garden Suite - 2 guests - from $180 per night.",
    "Password-protected Wi-Fi is available in all rooms.",
    "Signature dishes: basil risotto and lemon tart.",
    "Is breakfast included? Yes, a basic continental breakfast.",
    "Use code SUMMER for 10% off basic rentals.",
    "The token ring network was replaced in 1998.",
    "Basic: 2 doors, manual, air conditioning.",
    "Bearer: Jane Doe, seat 14C.",
    "Price = $120 + taxes; key = deposit required.",
    "Q&A: Can I bring a pet? Yes, for a small fee.",
    "Email us at help@example.com or call +1 555 0100.",
    "Checkout: 11:00. Late checkout: on request.",
    "Keys, tokens and cards are returned at checkout.",
    "Read our cookie policy and privacy notice.",
    "The secret to a good stay is a quiet room.",
    "Authorization code: printed on your receipt.",
]
_SUBJECTS = ["The hotel", "Our basic room", "The bearer", "Each guest", "The key card",
             "A secret deal", "Your password reset", "The cookie banner", "This token offer",
             "Authorization at check-in", "The session pass", "A signature cocktail",
             "The bearer of good news", "Every secret beach", "The basic fare"]
_PREDICATES = ["includes basic insurance", "is valid for 24 hours", "needs a key deposit",
               "comes with a free cookie", "requires authorization from the owner",
               "uses a secret handshake", "costs 3 tokens", "asks for a password twice",
               "has basic amenities", "is held by the bearer", "opens at 9:00 sharp",
               "is free: no key, no code", "keeps your cookie preferences",
               "is what the password hint says", "shows the token price = $4"]


def prose_corpus() -> list[str]:
    made = [f"{s} {p}." for s in _SUBJECTS for p in _PREDICATES]
    made += [f"Q: Does {s.lower()} matter? A: Basic answer: yes ({n} reviews)."
             for n, s in enumerate(_SUBJECTS)]
    return _PROSE + made + ["\n".join(_PROSE[i:i + 4]) for i in range(0, len(_PROSE), 4)]


def test_plain_prose_is_never_changed(tmp_path):
    corpus = prose_corpus()
    assert len(corpus) >= 250
    r = Redactor(["an-unrelated-secret-1234"], include_env=False)
    changed = [s for s in corpus if r.text(s) != s]
    assert changed == []
    # ... nor once stored as page text of a trajectory.
    tree = "\n".join(f"[{i}] [paragraph] [{t}]" for i, t in enumerate(corpus))
    traj = make_trajectory("t-prose")
    traj = traj.model_copy(update={"steps": tuple(
        s.model_copy(update={"observation": s.observation.model_copy(update={"axtree": tree})})
        for s in traj.steps)})
    with RunStore.create(tmp_path / "run", RunInfo(name="prose"), redactor=r) as store:
        store.add_trajectory(traj)
        stored = store.load_trajectory(traj.trajectory_id)
    assert stored.steps[0].observation.axtree == traj.steps[0].observation.axtree
