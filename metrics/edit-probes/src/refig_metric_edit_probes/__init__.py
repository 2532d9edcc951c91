"""refig metric `edit-probes`: editability measured by doing the edits a user makes next."""
