"""The engines' names, apart from the engine itself: the command line lists them in its
options without importing NumPy and the shard reader at start-up."""

ENGINES = ("local", "dask")
SCHEDULER_VARIABLE = "EVALGAP_SCHEDULER"
