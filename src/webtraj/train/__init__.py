"""Learning from curated trajectories: LoRA fine-tuning (TRL + PEFT), a local
OpenAI-compatible server for the trained model, and the teacher-vs-student comparison."""
