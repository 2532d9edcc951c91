"""refig harness ``model``: one model call through litellm, the answer's code as the deliverable."""
