"""Finding a picture inside a source figure (whole, a scaled crop, or holding it), shared by the
metrics that need it: :mod:`refig.locating.matching` is the search, :mod:`refig.locating.shared`
runs it once per pair of hashes."""
