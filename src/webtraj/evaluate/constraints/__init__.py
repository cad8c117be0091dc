"""Constraint evaluation (the constraint-based evaluation paper): CSR of observations from judges
of single constraints."""
