"""The ``deck-edit`` task family (PPTArena): decks edited in place, scored for instruction
following and visual quality."""
