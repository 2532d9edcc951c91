"""Local stand-ins for the outside world (model APIs, arXiv), for tests and offline demos."""
