"""An imported run as a suite (`suite.ImportedSuite`)."""
