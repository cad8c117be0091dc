"""Process and interpreter plumbing: children that die with their parent, bulk work without the
cyclic collector. Below every other layer; knows nothing of webtraj's data."""
