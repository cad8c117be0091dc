"""WebArena-Verified as a webtraj suite: the installed package's tasks run on the user's
deployment (`suite`), its agent logs read and written (`logs`), its evaluators
(`evaluate`)."""
