"""PPTArena's tables for a run: IF and VQ by configuration, category, edit type and subset;
judge stability and agreement; the dataset statistics (Tables 2 and 3) and the executor block
(Table 7)."""
