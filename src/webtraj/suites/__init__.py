"""Task suites served from benchmarks nobody on this project wrote (MiniWoB++), with their
own reward. The sandbox booking suite lives in `webtraj.sites`."""
