"""Eval workers: take ``eval.task`` messages, call the target, score, publish ``eval.result``."""
