"""refig metric `image`: pixel similarity of the rendering to the source figure."""
