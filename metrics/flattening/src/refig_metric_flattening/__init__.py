"""refig metric `flattening`: is the slide a raster, or a paste of the source?"""
