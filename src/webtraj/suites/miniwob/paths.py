"""The URLs the injected episode script uses to report to the server (and the evaluator
reads back from the HAR). Kept apart from the server so that reading them needs no web
framework."""

SCRIPT_PATH = "/_webtraj/episode.js"
START_PATH = "/_webtraj/start"
REWARD_PATH = "/_webtraj/reward"
