"""The vocabulary of generated decks, with the French of every title a translation edit asks for."""

from __future__ import annotations

TOPICS = ("Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor")

#: Every slide title a generated deck uses, and its French (the translation edit's dictionary).
FRENCH = {
    "Agenda": "Ordre du jour",
    "Results by region": "Résultats par région",
    "Revenue by quarter": "Chiffre d'affaires par trimestre",
    "How it works": "Comment ça marche",
    "Our partners": "Nos partenaires",
    "Thank you": "Merci",
    "Next steps": "Prochaines étapes",
}

AGENDA_ITEMS = ("Context", "Goals", "Results", "Risks", "Budget", "Timeline", "Team", "Questions")
REGIONS = ("North", "South", "East", "West", "Central")
STEPS = ("Collect", "Clean", "Model", "Review", "Ship")
NARRATION = (
    "Welcome everyone and set the scene.",
    "Walk through each agenda item briefly.",
    "Point out the strongest region first.",
    "Explain the dip in the third quarter.",
    "Describe the pipeline step by step.",
    "Thank the partners by name.",
)
PALETTE = ("1F77B4", "FF7F0E", "2CA02C", "D62728", "9467BD", "8C564B", "E377C2", "17BECF")
#: Stages of the roadmap diagram (SmartArt), and the names a rename edit gives one of them.
ROADMAP = ("Discover", "Design", "Build", "Pilot", "Launch", "Scale")
RENAMED_STAGES = ("Prototype", "Validate", "Release")
