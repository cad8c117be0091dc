import orjson

from factories import make_trajectory
from webtraj.model import RunInfo
from webtraj.store import REDACTED, RunStore

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
