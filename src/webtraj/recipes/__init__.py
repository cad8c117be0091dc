"""Recipes that chain whole commands (teacher runs, curation, training, student runs)."""
