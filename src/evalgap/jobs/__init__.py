"""The jobs: each turns loaded scores and options into one typed result.

Jobs sit above the reports and loaders (``evalgap.report``, ``evalgap.io``), which sit above
the score containers (``evalgap._scores``) and the statistics core (``evalgap.stats``); the
command line (``evalgap.cli``) sits on top. Nothing here is public by its module path: the
public names are re-exported flat from :mod:`evalgap`.
"""
