"""The built-in personas the explorers browse as (NNetNav: a persona gives exploration a
purpose, so episodes look like people's errands rather than random clicks)."""

from __future__ import annotations

import random

from webtraj.model.exploration import Persona

PERSONAS: tuple[Persona, ...] = (
    Persona(name="budget backpacker", about="I travel alone on a shoestring and compare "
            "prices before anything else.", party="solo", budget="low",
            likes=("free cancellation", "breakfast", "bus", "economy"), patience=6),
    Persona(name="family planner", about="I plan holidays for two adults and two kids and "
            "need space, a pool and flexibility.", party="family", budget="mid",
            likes=("pool", "free cancellation", "family", "parking"), patience=7),
    Persona(name="business traveller", about="I book quick, comfortable trips for work and "
            "want good ratings and no surprises.", party="solo", budget="high",
            likes=("breakfast", "nonstop", "business", "train", "stars"), patience=5),
    Persona(name="weekend couple", about="We like short romantic getaways somewhere "
            "special.", party="couple", budget="high",
            likes=("spa", "hot tub", "fireplace", "ocean view", "pool"), patience=6),
    Persona(name="pet owner", about="I never travel without my dog, so the place must "
            "allow pets.", party="couple", budget="mid",
            likes=("pets", "pet", "parking", "automatic"), patience=6),
    Persona(name="group organiser", about="I organise trips for a group of friends and "
            "look for big places and good deals.", party="group", budget="low",
            likes=("bedrooms", "house", "parking", "train"), patience=8),
)


def draw_persona(rng: random.Random) -> Persona:
    return rng.choice(PERSONAS)
