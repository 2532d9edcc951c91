"""The generated ``deck-sample`` suite: decks and edits with exact, machine-checkable targets."""
