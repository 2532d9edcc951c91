"""PPTArena's tables for a run: IF and VQ by configuration, category, edit type and subset;
judge stability and agreement."""
