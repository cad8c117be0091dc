"""Explorers: agents that browse a site without a task, as a persona would (`webtraj
explore`); what they did is labeled in hindsight afterwards (`webtraj.generate.hindsight`)."""
