"""refig metric `text`: does the slide carry the source's text as native, editable text?"""
