"""refig metric `connector-audit`: how a slide draws its arrows and links."""
