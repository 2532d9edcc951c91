"""The files a baseline leaves in the workspace: figure-to-slide's deliverables."""

SLIDE_FILE = "slide.pptx"
PROGRAM_FILE = "build_slide.py"
