"""Task generation (the constraint-based evaluation paper): LLM task proposals, constraint
extraction for tasks without
constraints, and refreshing stale dates."""
