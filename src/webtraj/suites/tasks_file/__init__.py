"""A tasks file as a suite (`suite.TasksFileSuite`)."""
