"""The booking suite: webtraj's five sandbox sites (`webtraj.sites`) and their 120 tasks,
served at a date and seed a run keeps for its life (`suite.BookingSuite`)."""
